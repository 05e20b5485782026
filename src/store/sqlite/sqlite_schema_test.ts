import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { API_VERSION } from "../../api/v1alpha1/meta.ts";
import { SCHEMA_VERSION } from "../store.ts";
import { SchemaTooNewError } from "../../sqlite/migrations.ts";
import { MIGRATIONS } from "./sqlite_schema.ts";
import {
  migrateSchema,
  type Migration,
  readSchemaVersion,
} from "../../sqlite/migrations.ts";
import { openSqliteStore } from "./sqlite_store.ts";

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-schema-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function withDb<T>(path: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** A step past the real ones, to test migrating an older file. */
const NEXT: Migration = {
  to: SCHEMA_VERSION + 1,
  description: "test: a notes table",
  up: (db) => db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"),
};

const ZONE = {
  apiVersion: API_VERSION,
  kind: "DNSZone",
  metadata: { name: "a" },
  spec: { zoneName: "a.example.", type: "primary" },
};

Deno.test("sqlite schema fresh file gets the current version", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "state.db");
    const store = await openSqliteStore(path);
    await store.close();
    assert.equal(
      withDb(path, (db) => readSchemaVersion(db, path)),
      SCHEMA_VERSION,
    );
  });
});

Deno.test("sqlite schema version 1 file gains the runtime table and keeps its objects", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "state.db");
    // A state.db as the first release left it: one object, no runtime table.
    const first = await openSqliteStore(path);
    const created = await first.apply(ZONE, { manager: "api" });
    await first.close();
    withDb(path, (db) => {
      db.exec("DROP TABLE runtime");
      // …and none of schema 3's audit columns.
      db.exec(`DROP INDEX audit_actor; DROP INDEX audit_time;
        ALTER TABLE audit DROP COLUMN authorization;
        ALTER TABLE audit DROP COLUMN client;
        ALTER TABLE audit DROP COLUMN "before";
        ALTER TABLE audit DROP COLUMN "after";`);
      db.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    });
    const store = await openSqliteStore(path);
    try {
      assert.deepEqual(
        await store.get({ kind: "DNSZone", namespace: "", name: "a" }),
        created,
      );
      assert.equal(store.info().schemaVersion, SCHEMA_VERSION);
      await store.setRuntime("blocking.disabledUntil", "2030-01-01T00:00:00Z");
      assert.equal(
        (await store.getRuntime("blocking.disabledUntil"))?.value,
        "2030-01-01T00:00:00Z",
      );
    } finally {
      await store.close();
    }
  });
});

Deno.test("sqlite schema older file is migrated in one step", async () => {
  await inTempDir((dir) => {
    const path = join(dir, "state.db");
    withDb(path, (db) => {
      migrateSchema(db, path, MIGRATIONS, 1);
      assert.deepEqual(
        migrateSchema(db, path, [...MIGRATIONS, NEXT], SCHEMA_VERSION + 1),
        { from: 1, to: SCHEMA_VERSION + 1 },
      );
      assert.equal(readSchemaVersion(db, path), SCHEMA_VERSION + 1);
      // The real step to version 2 ran on the way.
      db.prepare(
        "INSERT INTO runtime (key, value, updated_at) VALUES ('k', 'v', 't')",
      )
        .run();
      db.prepare("INSERT INTO notes (text) VALUES ('migrated')").run();
    });
    return Promise.resolve();
  });
});

Deno.test("sqlite schema failing migration leaves the old version", async () => {
  await inTempDir((dir) => {
    const path = join(dir, "state.db");
    withDb(path, (db) => {
      migrateSchema(db, path, MIGRATIONS, SCHEMA_VERSION);
      const broken: Migration = {
        to: SCHEMA_VERSION + 1,
        description: "test: fails halfway",
        up(d) {
          d.exec("CREATE TABLE half (id INTEGER)");
          throw new Error("migration step failed");
        },
      };
      assert.throws(
        () =>
          migrateSchema(
            db,
            path,
            [...MIGRATIONS, broken],
            SCHEMA_VERSION + 1,
          ),
        /migration step failed/,
      );
      assert.equal(readSchemaVersion(db, path), SCHEMA_VERSION);
      const half = db.prepare(
        "SELECT name FROM sqlite_master WHERE name = 'half'",
      ).get();
      assert.equal(half, undefined);
    });
    return Promise.resolve();
  });
});

Deno.test("sqlite schema newer file is refused and left untouched", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "state.db");
    const store = await openSqliteStore(path);
    await store.close();
    withDb(
      path,
      (db) =>
        db.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'"),
    );
    const before = await Deno.readFile(path);
    const mtime = (await Deno.stat(path)).mtime;
    await assert.rejects(openSqliteStore(path), (err) => {
      assert.ok(err instanceof SchemaTooNewError, String(err));
      assert.equal(err.found, 99);
      assert.match(err.message, new RegExp(path));
      return true;
    });
    assert.deepEqual(await Deno.readFile(path), before);
    assert.deepEqual((await Deno.stat(path)).mtime, mtime);
  });
});

Deno.test("sqlite schema corrupt file gets a clear error and is left untouched", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "state.db");
    const garbage = new TextEncoder().encode(
      "this is not a database\n".repeat(200),
    );
    await Deno.writeFile(path, garbage);
    await assert.rejects(openSqliteStore(path), (err) => {
      assert.ok(err instanceof Error);
      assert.match(
        err.message,
        /^Cannot open ".*state\.db": it is not a readable SQLite database/,
      );
      assert.match(err.message, /move it aside or restore it from a backup/);
      return true;
    });
    assert.deepEqual(await Deno.readFile(path), garbage);
  });
});

Deno.test("sqlite schema foreign SQLite file is refused", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "other.db");
    withDb(path, (db) => db.exec("CREATE TABLE photos (id INTEGER)"));
    await assert.rejects(
      openSqliteStore(path),
      /not a kudurru database; point kudurru at another data directory/,
    );
  });
});

Deno.test("sqlite schema missing directory gets an error naming the path", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "missing", "state.db");
    await assert.rejects(openSqliteStore(path), (err) => {
      assert.ok(err instanceof Error);
      assert.ok(err.message.startsWith(`Cannot open "${path}"`), err.message);
      assert.match(err.message, /directory exists and kudurru may write to it/);
      return true;
    });
  });
});

Deno.test({
  name:
    "sqlite schema on a full disk says to free space, not to check the directory",
  // /dev/full fails every write with ENOSPC, as a full disk does.
  ignore: Deno.build.os !== "linux",
  async fn() {
    await inTempDir(async (dir) => {
      const path = join(dir, "state.db");
      await Deno.symlink("/dev/full", path);
      await assert.rejects(
        openSqliteStore(path),
        new RegExp(
          `^Error: Cannot open "${path}": database or disk is full; the disk is full: free space in ${dir}$`,
        ),
      );
    });
  },
});
