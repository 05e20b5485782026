import assert from "node:assert/strict";
import { join } from "node:path";
import {
  MISS_ADDRESS,
  missName,
  missQueryFile,
  RESOLVER_ZONE,
  resolverAddress,
  resolverName,
  resolverQueryFile,
  resolverZoneText,
} from "./resolver_zone.ts";

Deno.test("resolverZoneText loads in nsd-checkzone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-resolver-zone-" });
  try {
    const file = join(dir, "bench.zone");
    await Deno.writeTextFile(file, resolverZoneText());
    const out = await new Deno.Command("nsd-checkzone", {
      args: [RESOLVER_ZONE, file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolverZoneText gives every name its own A record", () => {
  const text = resolverZoneText(300);
  const records = text.split("\n").filter((l) => /^h\d+ IN A /.test(l));
  assert.equal(records.length, 300);
  assert.equal(new Set(records.map((l) => l.split(" ")[3])).size, 300);
  assert.ok(records.includes(`h299 IN A ${resolverAddress(299)}`));
});

Deno.test("resolverQueryFile asks each name once for A", () => {
  const lines = resolverQueryFile(5).trim().split("\n");
  assert.deepEqual(lines, [0, 1, 2, 3, 4].map((i) => `${resolverName(i)} A`));
});

Deno.test("resolverAddress stays inside 198.18.0.0/15", () => {
  for (const i of [0, 255, 256, 65_535, 65_536, 131_071]) {
    assert.match(resolverAddress(i), /^198\.1[89]\.\d{1,3}\.\d{1,3}$/);
  }
  assert.equal(resolverAddress(258), "198.18.1.2");
});

Deno.test("the cache-miss names are distinct and under the zone's wildcard", () => {
  const lines = missQueryFile(3).trim().split("\n");
  assert.deepEqual(lines, [0, 1, 2].map((i) => `${missName(i)} A`));
  assert.ok(missName(0).endsWith(`.miss.${RESOLVER_ZONE}`));
  assert.ok(resolverZoneText(1).includes(`*.miss IN A ${MISS_ADDRESS}`));
});
