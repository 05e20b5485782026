import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import { SchemaTooNewError } from "../sqlite/migrations.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import type { Request } from "../pipeline/request.ts";
import { decodeAnswer } from "../testing/query_bytes.ts";
import { createStandardCacheStage } from "../stages/data_plane.ts";
import { EDNS_CLIENT_SUBNET } from "../stages/upstream/client_subnet.ts";
import {
  answered,
  requestFrom,
  rrsets,
  scriptedResolver,
  snapshotWith,
  upstreamAnswer,
  upstreamsOf,
} from "../stages/upstream/testdata/upstream_fixtures.ts";
import { createUpstreamStage } from "../stages/upstream/upstream.ts";
import {
  flushCacheDump,
  forgetCacheDump,
  loadCacheDump,
  LOCAL_DB_SCHEMA_VERSION,
  saveCacheDump,
} from "./local_db.ts";

/** ECS option data for 1.2.3.0/24, SCOPE 0 (as sent). */
const ECS_1_2_3 = new Uint8Array([0, 1, 24, 0, 1, 2, 3]);

function withScope24(option: Uint8Array): Uint8Array {
  const out = option.slice();
  out[3] = 24;
  return out;
}

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

Deno.test("local.db flush of a subtree removes a name and the names below it, `_` no wildcard", async () => {
  await using tmp = await tempDb();
  const named = (name: string) => ({ ...entry(`${name} 1 1 --`), name });
  const below = ["a_b.example.", "x.a_b.example.", "y.x.a_b.example."];
  // In a LIKE pattern `_` would match any character.
  const beside = [
    "aab.example.",
    "x.aab.example.",
    "xa_b.example.",
    "x.a-b.example.",
    "example.",
  ];
  saveCacheDump(tmp.path, [...below, ...beside].map(named));
  assert.equal(flushCacheDump(tmp.path, "A_B.example", { subtree: true }), 3);
  const left = loadCacheDump(tmp.path, { logger: memoryLogger() });
  assert.deepEqual(left.map((e) => e.name), beside);
  assert.equal(flushCacheDump(tmp.path, "example", { subtree: false }), 1);
  assert.equal(flushCacheDump(tmp.path, ".", { subtree: true }), 4, "root");
  assert.deepEqual(loadCacheDump(tmp.path, { logger: memoryLogger() }), []);
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

Deno.test("local.db load leaves a file it cannot open in place: no I/O error counts as damage", async () => {
  await using tmp = await tempDb();
  // A directory where the file should be: SQLite cannot open it, as with a
  // failing disk, yet nothing says the file is damaged.
  Deno.mkdirSync(tmp.path);
  const logger = memoryLogger();
  assert.deepEqual(loadCacheDump(tmp.path, { logger }), []);
  assert.ok(Deno.statSync(tmp.path).isDirectory);
  const names = [...Deno.readDirSync(tmp.dir)].map((e) => e.name);
  assert.deepEqual(names, ["local.db"]);
  assert.match(logger.lines.join("\n"), /leaving the file as it is/);
});

Deno.test("local.db save and load keep an entry's client subnet", async () => {
  await using tmp = await tempDb();
  const entries = [
    {
      ...entry("www.example.org. 1 1 -- ecs=00011800010203"),
      clientSubnet: ECS_1_2_3,
    },
    entry("www.example.org. 1 1 --"),
  ];
  saveCacheDump(tmp.path, entries);
  assert.deepEqual(
    loadCacheDump(tmp.path, { logger: memoryLogger() }),
    entries,
  );
});

Deno.test("local.db: a cached ECS answer still echoes the client's subnet after a restart", async () => {
  await using tmp = await tempDb();
  // An upstream that answers for the subnet it was sent, SCOPE 24.
  const resolver = scriptedResolver(({ request }) => {
    const answeredSubnet = request.clientSubnet?.slice();
    if (answeredSubnet !== undefined) answeredSubnet[3] = 24;
    return answered(upstreamAnswer("www.example.org. A", {
      answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
      edns: {
        udpSize: 1232,
        options: answeredSubnet === undefined
          ? []
          : [{ code: EDNS_CLIENT_SUBNET, data: answeredSubnet }],
      },
    }));
  });
  const upstream = createUpstreamStage({ resolver, logger: memoryLogger() });
  const next = (req: Request) =>
    upstream.serve(req, () => {
      throw new Error("the upstream stage never calls next");
    });
  const snapshot = snapshotWith(upstreamsOf({ ecs: { mode: "forward" } }));
  const ask = () =>
    requestFrom("www.example.org. A", {
      snapshot,
      edns: { options: [{ code: EDNS_CLIENT_SUBNET, data: ECS_1_2_3 }] },
    });
  const echoed = [{ code: EDNS_CLIENT_SUBNET, data: withScope24(ECS_1_2_3) }];

  const before = createStandardCacheStage();
  const miss = await before.serve(ask(), next);
  assert.deepEqual(decodeAnswer(miss.wire!).opt?.options, echoed);
  saveCacheDump(tmp.path, before.exportEntries());

  const after = createStandardCacheStage();
  const dump = loadCacheDump(tmp.path, { logger: memoryLogger() });
  assert.equal(after.importEntries(structuredClone(dump)), 1);
  const hit = await after.serve(ask(), next);
  assert.equal(hit.status, "cached");
  assert.equal(resolver.calls.length, 1);
  assert.deepEqual(decodeAnswer(hit.wire!).opt?.options, echoed);
});

Deno.test("local.db opens a version 1 file and keeps its entries, but not those asked with ECS", async () => {
  await using tmp = await tempDb();
  const v1 = new DatabaseSync(tmp.path);
  v1.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE cache_entries (
      key TEXT PRIMARY KEY, name TEXT NOT NULL, wire BLOB NOT NULL,
      offsets TEXT NOT NULL, ttls TEXT NOT NULL, stored_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL, stale_until INTEGER NOT NULL,
      ttl INTEGER NOT NULL, negative INTEGER NOT NULL
    );
    INSERT INTO meta (key, value) VALUES ('schema_version', '1');
  `);
  const insert = v1.prepare(
    "INSERT INTO cache_entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const rows = [
    entry("www.example.org. 1 1 --"),
    // Its option was not kept: it would come back unable to echo it.
    entry("www.example.org. 1 1 -- ecs=00011800010203"),
    entry("www.example.org. 1 1 -- group=kids"),
    entry("www.example.org. 1 1 -- group=kids,ecs=00011800010203"),
  ];
  for (const e of rows) {
    insert.run(
      e.key,
      e.name,
      e.wire,
      JSON.stringify(e.offsets),
      JSON.stringify(e.ttls),
      e.storedAt,
      e.expiresAt,
      e.staleUntil,
      e.ttl,
      0,
    );
  }
  v1.close();
  const logger = memoryLogger();
  assert.deepEqual(loadCacheDump(tmp.path, { logger }), [rows[0], rows[2]]);
  assert.deepEqual(logger.lines, []);

  // The next save migrates the file and keeps options from then on.
  const withSubnet = { ...rows[1]!, clientSubnet: ECS_1_2_3 };
  saveCacheDump(tmp.path, [withSubnet]);
  assert.deepEqual(loadCacheDump(tmp.path, { logger }), [withSubnet]);
  const db = new DatabaseSync(tmp.path);
  const version = db.prepare(
    "SELECT value FROM meta WHERE key = 'schema_version'",
  ).get();
  db.close();
  assert.equal(version?.value, String(LOCAL_DB_SCHEMA_VERSION));
});
