import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import { runStoreConformance } from "../conformance.ts";
import { EventReader, zone } from "../conformance_fixtures.ts";
import { NotFoundError, type Store } from "../store.ts";
import { openSqliteStore, type SqliteStoreOptions } from "./sqlite_store.ts";

/** A store in a fresh temp dir; closing it removes the dir. */
async function openTemp(
  opts: SqliteStoreOptions = {},
): Promise<Store & { path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-sqlite-" });
  const path = join(dir, "state.db");
  const store = await openSqliteStore(path, opts);
  const close = store.close.bind(store);
  return Object.assign(store, {
    path,
    async close() {
      await close();
      await Deno.remove(dir, { recursive: true }).catch(() => {}); // closing twice is allowed
    },
  });
}

runStoreConformance(
  "sqlite store",
  (hints) =>
    openTemp({
      ...(hints?.feedLimit ? { feedLimit: hints.feedLimit } : {}),
      ...(hints?.now ? { now: hints.now } : {}),
    }),
);

const zoneKey = (name: string) => ({ kind: "DNSZone", namespace: "", name });

function zoneObject(name: string): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name },
    spec: { zoneName: `${name}.example.`, type: "primary" },
  };
}

/** Runs fn with a raw connection to the store's file. */
function withRaw<T>(path: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return fn(db);
  } finally {
    db.close();
  }
}

Deno.test("sqlite store uses WAL journal mode", async () => {
  const store = await openTemp();
  try {
    const mode = withRaw(
      store.path,
      (db) => db.prepare("PRAGMA journal_mode").get()?.journal_mode,
    );
    assert.equal(mode, "wal");
  } finally {
    await store.close();
  }
});

Deno.test("sqlite store keeps objects and resourceVersions across reopen", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-sqlite-" });
  try {
    const path = join(dir, "state.db");
    const first = await openSqliteStore(path);
    const created = await first.apply(zoneObject("a"), { manager: "api" });
    const clusterID = first.info().clusterID;
    await first.close();
    const second = await openSqliteStore(path);
    try {
      assert.deepEqual(await second.get(zoneKey("a")), created);
      assert.equal(second.info().clusterID, clusterID);
      const next = await second.apply(zoneObject("b"), { manager: "api" });
      assert.ok(
        Number(next.metadata.resourceVersion) >
          Number(created.metadata.resourceVersion),
      );
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sqlite store writes the audit row in the mutation's transaction", async (t) => {
  const store = await openTemp();
  try {
    await t.step("a successful apply writes one audit row", async () => {
      await store.apply(zoneObject("a"), { manager: "api", actor: "alice" });
      const rows = withRaw(
        store.path,
        (db) => db.prepare("SELECT actor, action, kind, name FROM audit").all(),
      );
      assert.deepEqual(rows.map((r) => ({ ...r })), [{
        actor: "alice",
        action: "create",
        kind: "DNSZone",
        name: "a",
      }]);
    });
    await t.step(
      "a failing audit insert leaves neither object nor change",
      async () => {
        withRaw(store.path, (db) =>
          db.exec(
            "CREATE TRIGGER audit_fails BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit disk full'); END",
          ));
        await assert.rejects(
          store.apply(zoneObject("b"), { manager: "api" }),
          /audit disk full/,
        );
        await assert.rejects(store.get(zoneKey("b")), NotFoundError);
        const counts = withRaw(store.path, (db) => ({
          changes: db.prepare("SELECT count(*) AS n FROM changes").get()?.n,
          audit: db.prepare("SELECT count(*) AS n FROM audit").get()?.n,
          rv: db.prepare(
            "SELECT value FROM meta WHERE key = 'resource_version'",
          ).get()?.value,
        }));
        assert.deepEqual(counts, { changes: 1, audit: 1, rv: "1" });
      },
    );
  } finally {
    await store.close();
  }
});

Deno.test("sqlite store delivers another connection's writes to watchers by polling", async () => {
  const store = await openTemp({ pollIntervalMs: 20 });
  const other = await openSqliteStore(store.path, { pollIntervalMs: 60_000 });
  const reader = new EventReader(store.watch("DNSZone"));
  try {
    assert.equal((await reader.next())?.type, "Bookmark");
    const created = await other.apply(zone("remote"), { manager: "api" });
    const event = await reader.next(2000);
    assert.equal(event?.type, "Added");
    assert.deepEqual(event?.object, created);
  } finally {
    reader.close();
    await other.close();
    await store.close();
  }
});

Deno.test("sqlite store keeps a write from two connections in one resourceVersion sequence", async () => {
  const store = await openTemp();
  const other = await openSqliteStore(store.path);
  try {
    const a = await store.apply(zoneObject("a"), { manager: "api" });
    const b = await other.apply(zoneObject("b"), { manager: "api" });
    const c = await store.apply(zoneObject("c"), { manager: "api" });
    assert.deepEqual([a, b, c].map((o) => o.metadata.resourceVersion), [
      "1",
      "2",
      "3",
    ]);
  } finally {
    await other.close();
    await store.close();
  }
});

Deno.test("sqlite store runtime values survive reopen", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-sqlite-" });
  try {
    const path = join(dir, "state.db");
    const first = await openSqliteStore(path);
    const set = await first.setRuntime(
      "blocking.disabledUntil",
      "2030-01-01T00:05:00.000Z",
      {
        actor: "cli",
      },
    );
    await first.setRuntime("gone.after.delete", "x");
    await first.setRuntime("gone.after.delete", null);
    await first.close();
    const second = await openSqliteStore(path);
    try {
      assert.deepEqual(await second.getRuntime("blocking.disabledUntil"), set);
      assert.equal(await second.getRuntime("gone.after.delete"), undefined);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sqlite store runtime writes from two connections: each sees the other's, the last wins", async () => {
  const store = await openTemp();
  const other = await openSqliteStore(store.path);
  try {
    await store.setRuntime("blocking.disabledUntil", "first", { actor: "a" });
    assert.equal(
      (await other.getRuntime("blocking.disabledUntil"))?.value,
      "first",
    );
    await other.setRuntime("blocking.disabledUntil", "second", { actor: "b" });
    const seen = await store.getRuntime("blocking.disabledUntil");
    assert.equal(seen?.value, "second");
    assert.equal(seen?.actor, "b");
    // Interleaved concurrent writers on two connections: the final row is
    // the last write of whichever connection committed last, never a mix.
    const writes = [];
    for (let i = 0; i < 10; i++) {
      writes.push(store.setRuntime("race", `a-${i}`, { actor: "a" }));
      writes.push(other.setRuntime("race", `b-${i}`, { actor: "b" }));
    }
    await Promise.all(writes);
    const final = await store.getRuntime("race");
    assert.deepEqual(final, await other.getRuntime("race"));
    assert.equal(final?.value, "b-9");
    assert.equal(final?.actor, "b");
  } finally {
    await other.close();
    await store.close();
  }
});

Deno.test("sqlite store audits runtime writes, but not a delete of nothing", async () => {
  const store = await openTemp();
  try {
    await store.apply(zoneObject("a"), { manager: "api" });
    await store.setRuntime("blocking.disabledUntil", "v", { actor: "alice" });
    await store.setRuntime("blocking.disabledUntil", null, { actor: "bob" });
    await store.setRuntime("blocking.disabledUntil", null, { actor: "carol" });
    await store.setRuntime("other.key", "w");
    const rows = withRaw(
      store.path,
      (db) =>
        db.prepare(
          "SELECT actor, manager, action, kind, name, resource_version FROM audit ORDER BY id",
        ).all(),
    );
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      {
        actor: "api",
        manager: "api",
        action: "create",
        kind: "DNSZone",
        name: "a",
        resource_version: 1,
      },
      {
        actor: "alice",
        manager: "runtime",
        action: "set",
        kind: "Runtime",
        name: "blocking.disabledUntil",
        resource_version: 1,
      },
      {
        actor: "bob",
        manager: "runtime",
        action: "delete",
        kind: "Runtime",
        name: "blocking.disabledUntil",
        resource_version: 1,
      },
      {
        actor: "system",
        manager: "runtime",
        action: "set",
        kind: "Runtime",
        name: "other.key",
        resource_version: 1,
      },
    ]);
  } finally {
    await store.close();
  }
});

Deno.test("sqlite store runtime write rolls back when its audit row fails", async () => {
  const store = await openTemp();
  try {
    await store.setRuntime("blocking.disabledUntil", "kept");
    withRaw(store.path, (db) =>
      db.exec(
        "CREATE TRIGGER audit_fails BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit disk full'); END",
      ));
    await assert.rejects(
      store.setRuntime("blocking.disabledUntil", "lost"),
      /audit disk full/,
    );
    await assert.rejects(
      store.setRuntime("blocking.disabledUntil", null),
      /audit disk full/,
    );
    assert.equal(
      (await store.getRuntime("blocking.disabledUntil"))?.value,
      "kept",
    );
  } finally {
    await store.close();
  }
});
