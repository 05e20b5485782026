import assert from "node:assert/strict";
import { join } from "node:path";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import { memoryLogger } from "../log/logger.ts";
import { createObjectsLoader } from "./loader.ts";
import {
  group,
  groupYaml,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

interface Line {
  level: string;
  msg: string;
  reason?: string;
  source?: string;
  object?: string;
  hint?: string;
}

/** The logged lines about one diagnosis reason. */
function linesOf(lines: string[], reason: string): Line[] {
  return lines.map((l) => JSON.parse(l) as Line).filter((l) =>
    l.reason === reason
  );
}

Deno.test("ObjectsLoader logs a warning at WARN once while it lasts, and again when it comes back", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const logger = memoryLogger();
  const loader = createObjectsLoader({ store, dir: d.dir, logger });
  await d.write("more.yaml", "");
  await loader.load();
  await loader.load();
  const logged = linesOf(logger.lines, "EmptyFile");
  assert.equal(logged.length, 1, "once over two loads");
  assert.equal(logged[0]!.level, "warn");
  assert.equal(logged[0]!.source, "objects.d/more.yaml");
  assert.match(logged[0]!.hint ?? "", /comment line/);
  await d.write("more.yaml", "# nothing\n");
  await loader.load();
  await d.write("more.yaml", "");
  await loader.load();
  assert.equal(linesOf(logger.lines, "EmptyFile").length, 2);
});

Deno.test("ObjectsLoader logs an error with its hint", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const logger = memoryLogger();
  const loader = createObjectsLoader({ store, dir: d.dir, logger });
  await d.write(
    "a.yaml",
    `apiVersion: ${API_VERSION}\nkind: DnsRecordSet\nmetadata: { name: x }\n`,
  );
  await loader.load();
  const [line] = linesOf(logger.lines, "UnknownKind");
  assert.equal(line?.level, "warn");
  assert.match(line?.hint ?? "", /did you mean "DNSRecordSet"\?/);
});

Deno.test("ObjectsLoader logs infos at INFO: a missing directory, an adoption", async (t) => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await t.step("a missing directory", async () => {
    const logger = memoryLogger();
    const dir = join(d.root, "gone.d");
    const loader = createObjectsLoader({ store, dir, logger });
    await loader.load();
    await loader.load();
    const logged = linesOf(logger.lines, "ReadFailed");
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.level, "info");
    assert.match(logged[0]!.msg, /does not exist/);
    assert.match(logged[0]!.hint ?? "", /kept/);
  });
  await t.step("an object adopted from no manager", async () => {
    const logger = memoryLogger();
    await store.apply(group("orphan"), { manager: "" });
    await d.write("a.yaml", groupYaml("orphan"));
    await createObjectsLoader({ store, dir: d.dir, logger }).load();
    const [line] = linesOf(logger.lines, "Adopted");
    assert.equal(line?.level, "info");
    assert.equal(line?.object, "ClientGroup/default/orphan");
  });
});

Deno.test("ObjectsLoader logs the first 20 objects of a load at INFO, the rest at DEBUG", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const logger = memoryLogger();
  const loader = createObjectsLoader({ store, dir: d.dir, logger });
  const names = Array.from({ length: 25 }, (_, i) => `g${i}`);
  await d.write("many.yaml", names.map((n) => groupYaml(n)).join("---\n"));
  await loader.load();
  const lines = logger.lines.map((l) => JSON.parse(l) as Line);
  const applied = lines.filter((l) => l.msg === "Applied file-managed object");
  assert.equal(applied.length, 25, "every object still has its line");
  assert.equal(applied.filter((l) => l.level === "info").length, 20);
  assert.equal(
    lines.filter((l) => l.level === "info" && /^More objects/.test(l.msg))
      .length,
    1,
  );
  assert.equal((await store.list("ClientGroup")).items.length, 25);
});
