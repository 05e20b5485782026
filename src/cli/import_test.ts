import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { bufferIO, UsageError } from "./command.ts";
import { importCommand, renderList } from "./import.ts";
import { runCli } from "./run.ts";
import { decodeYaml } from "../objects/decode.ts";

const IMPORTS = new URL("../../../shared/data/imports/", import.meta.url);
const sample = (path: string) => new URL(path, IMPORTS).pathname;

Deno.test("kudurru import prints objects kudurru apply takes, the settings to merge and the report", async () => {
  const out = bufferIO();
  const code = await importCommand.run(
    ["blocky", sample("blocky/config.yml")],
    out.io,
  );
  assert.equal(code, 0, out.stderr());
  const list = YAML.parse(out.stdout());
  assert.equal(list.kind, "List");
  // What `kudurru apply -f` reads: every item decodes, none is diagnosed.
  const decoded = decodeYaml("import.yaml", out.stdout());
  assert.equal(decoded.diagnoses.length, 0, JSON.stringify(decoded.diagnoses));
  assert.equal(decoded.objects.length, list.items.length);
  assert.ok(list.items.some((o: { kind: string }) => o.kind === "BlockList"));
  // The settings go to standard error, ready to merge, then the report.
  assert.match(out.stderr(), /# Merge into kudurru\.yaml:\nupstreams:/);
  assert.match(out.stderr(), /^# \d+ objects; \d+ mapped, \d+ skipped$/m);
  assert.match(out.stderr(), /^skipped {2}\S+: /m);
});

Deno.test("kudurru import -o and --settings-out write files; the wrong tool's file is refused with a clear message", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-import-" });
  try {
    const out = bufferIO();
    const code = await importCommand.run([
      "dnsmasq",
      sample("dnsmasq/apple.china.conf"),
      "-o",
      join(dir, "objects.yaml"),
      "--settings-out",
      join(dir, "settings.yaml"),
    ], out.io);
    assert.equal(code, 0, out.stderr());
    assert.equal(out.stdout(), "");
    const settings = YAML.parse(
      await Deno.readTextFile(join(dir, "settings.yaml")),
    );
    assert.ok(Object.keys(settings.upstreams.conditional).length >= 100);
    assert.equal(
      YAML.parse(await Deno.readTextFile(join(dir, "objects.yaml"))).kind,
      "List",
    );

    const wrong = bufferIO();
    assert.equal(
      await importCommand.run(
        [
          "blocky",
          sample("adguardhome/AdGuardHome.configmigrate-v34-output.yml"),
        ],
        wrong.io,
      ),
      1,
    );
    assert.match(wrong.stderr(), /kudurru import blocky: .*AdGuard Home/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru import names the tools it knows", async () => {
  await assert.rejects(
    () => importCommand.run(["pihole-x", "/tmp/x"], bufferIO().io),
    (e: Error) =>
      e instanceof UsageError &&
      /there are: adguard, bind, blocky, dnsmasq, pihole, technitium/.test(
        e.message,
      ),
  );
  await assert.rejects(
    () => importCommand.run([], bufferIO().io),
    UsageError,
  );
  assert.match(importCommand.usage, /bind +named\.conf/);
});

Deno.test("kudurru import --apply writes the objects to the local data directory; again, they are unchanged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-import-apply-" });
  try {
    const conf = sample("bind/pdns/named.conf");
    const none = bufferIO();
    assert.equal(
      await runCli(
        ["import", "bind", conf, "--data-dir", join(dir, "nothing-here")],
        none.io,
      ),
      0,
    );
    assert.match(none.stderr(), /applying would create every object/);
    const first = bufferIO();
    assert.equal(
      await runCli(
        ["import", "bind", conf, "--apply", "--data-dir", dir],
        first.io,
      ),
      0,
      first.stderr(),
    );
    assert.match(first.stderr(), /^DNSZone\/\S+ created$/m);
    const zones = bufferIO();
    assert.equal(
      await runCli(["get", "zones", "-o", "json", "--data-dir", dir], zones.io),
      0,
    );
    const names = JSON.parse(zones.stdout()).items.map((
      z: { spec: { zoneName: string } },
    ) => z.spec.zoneName);
    assert.ok(names.length > 0);
    const again = bufferIO();
    assert.equal(
      await runCli(
        ["import", "bind", conf, "--apply", "--data-dir", dir],
        again.io,
      ),
      0,
    );
    assert.doesNotMatch(again.stderr(), / created$/m);
    assert.match(again.stderr(), / unchanged$/m);
    // Without --apply: what applying would change, nothing written.
    const dry = bufferIO();
    assert.equal(
      await runCli(["import", "bind", conf, "--data-dir", dir], dry.io),
      0,
    );
    assert.match(dry.stderr(), /^# Applying \(--apply\) would:$/m);
    assert.match(dry.stderr(), /^would leave unchanged DNSZone\/\S+$/m);
    assert.doesNotMatch(dry.stderr(), /^would (create|change) /m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large import is written as JSON, which kudurru apply reads as YAML", () => {
  const endpoints = Array.from({ length: 1000 }, (_, i) => ({
    dnsName: `h${i}.example.test`,
    recordType: "A",
    targets: ["192.0.2.1"],
  }));
  const objects = Array.from({ length: 101 }, (_, i) => ({
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: { name: `big-${i}`, namespace: "default" },
    spec: { zoneRef: { name: "example-test" }, endpoints },
  }));
  const result = {
    objects,
    settings: {},
    report: { mapped: [], skipped: [] },
  } as unknown as Parameters<typeof renderList>[0];
  const text = renderList(result);
  assert.equal(text[0], "{");
  // Written an object at a time, as the List whole would be.
  assert.equal(
    text,
    JSON.stringify(
      { apiVersion: "v1", kind: "List", items: objects },
      null,
      1,
    ) +
      "\n",
  );
  const decoded = decodeYaml("import.json", text);
  assert.equal(decoded.objects.length, 101);
  assert.equal(
    renderList({ ...result, objects: objects.slice(0, 2) })[0],
    "a",
    "small Lists stay YAML",
  );
});
