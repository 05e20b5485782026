import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import { SchemaTooNewError } from "../store/store.ts";
import type { SerializedEntry } from "../stages/cache/cache_dump.ts";
import { forgetCacheDump, loadCacheDump, saveCacheDump } from "./local_db.ts";

function entry(key: string, storedAt = 1_000): SerializedEntry {
  return {
    key,
    name: "www.example.org.",
    wire: new Uint8Array([0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 9]),
    offsets: [12, 40],
    ttls: [300, 60],
    storedAt,
    expiresAt: storedAt + 300_000,
    staleUntil: storedAt + 600_000,
    ttl: 300,
    negative: false,
  };
}

async function tempDb() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-local-db-" });
  return {
    dir,
    path: join(dir, "local.db"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("local.db save and load give back the entries in order", async () => {
  await using tmp = await tempDb();
  const entries = [entry("b"), entry("a", 2_000)];
  saveCacheDump(tmp.path, entries);
  assert.deepEqual(
    loadCacheDump(tmp.path, { logger: memoryLogger() }),
    entries,
  );
});

Deno.test("local.db save replaces the previous dump", async () => {
  await using tmp = await tempDb();
  saveCacheDump(tmp.path, [entry("a"), entry("b")]);
  saveCacheDump(tmp.path, [entry("c")]);
  const loaded = loadCacheDump(tmp.path, { logger: memoryLogger() });
  assert.deepEqual(loaded.map((e) => e.key), ["c"]);
});

Deno.test("local.db load of a missing file gives no entries and creates nothing", async () => {
  await using tmp = await tempDb();
  assert.deepEqual(loadCacheDump(tmp.path, { logger: memoryLogger() }), []);
  assert.deepEqual([...Deno.readDirSync(tmp.dir)], []);
});

Deno.test("local.db load keeps the file", async () => {
  await using tmp = await tempDb();
  saveCacheDump(tmp.path, [entry("a")]);
  loadCacheDump(tmp.path, { logger: memoryLogger() });
  assert.equal(loadCacheDump(tmp.path, { logger: memoryLogger() }).length, 1);
});

Deno.test("local.db forget empties the dump: a crash before the next save brings nothing back", async () => {
  await using tmp = await tempDb();
  saveCacheDump(tmp.path, [entry("a"), entry("b")]);
  const logger = memoryLogger();
  forgetCacheDump(tmp.path, logger);
  assert.deepEqual(loadCacheDump(tmp.path, { logger }), []);
  assert.deepEqual(logger.lines, []);
});

Deno.test("local.db refuses a file from a newer kudurru", async (t) => {
  await using tmp = await tempDb();
  saveCacheDump(tmp.path, [entry("a")]);
  const db = new DatabaseSync(tmp.path);
  db.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  db.close();
  await t.step("save throws", () => {
    assert.throws(
      () => saveCacheDump(tmp.path, []),
      (err) =>
        err instanceof SchemaTooNewError &&
        /schema version 99/.test(err.message),
    );
  });
  await t.step("load warns, gives nothing and leaves the file", () => {
    const logger = memoryLogger();
    assert.deepEqual(loadCacheDump(tmp.path, { logger }), []);
    assert.match(logger.lines.join("\n"), /schema version 99 is newer/);
    assert.deepEqual(
      [...Deno.readDirSync(tmp.dir)].map((e) => e.name).filter((n) =>
        n.includes("corrupt")
      ),
      [],
    );
  });
});

Deno.test("local.db load moves a corrupt file aside with a warning", async () => {
  await using tmp = await tempDb();
  Deno.writeTextFileSync(tmp.path, "not a database ".repeat(100));
  const logger = memoryLogger();
  const loaded = loadCacheDump(tmp.path, {
    logger,
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
  });
  assert.deepEqual(loaded, []);
  const aside = join(tmp.dir, "local.db.corrupt-2026-01-02T03-04-05-000Z");
  assert.equal(
    Deno.readTextFileSync(aside),
    "not a database ".repeat(100),
  );
  assert.throws(() => Deno.statSync(tmp.path), Deno.errors.NotFound);
  assert.match(logger.lines.join("\n"), /moved it to/);
});
