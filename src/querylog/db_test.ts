import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { STATUSES } from "../pipeline/status.ts";
import {
  moveAsideDamaged,
  openQueryLogDb,
  QueryLogSchemaTooNewError,
  WAL_SIZE_LIMIT_BYTES,
} from "./db.ts";
import { isDamagedDatabaseError } from "../sqlite/damaged_file.ts";
import { QUERYLOG_SCHEMA_VERSION } from "./schema.ts";
import { tempQueryLog } from "./test_support.ts";

const pragma = (db: DatabaseSync, name: string) =>
  Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0];

Deno.test("openQueryLogDb creates the file with WAL, NORMAL sync and incremental vacuum", async () => {
  await using log = await tempQueryLog();
  const db = openQueryLogDb(log.path);
  try {
    assert.equal(pragma(db, "journal_mode"), "wal");
    assert.equal(pragma(db, "synchronous"), 1);
    assert.equal(pragma(db, "auto_vacuum"), 2);
    assert.equal(pragma(db, "journal_size_limit"), WAL_SIZE_LIMIT_BYTES);
    const version = db.prepare(
      "SELECT value FROM meta WHERE key = 'schema_version'",
    ).get()!;
    assert.equal(Number(version.value), QUERYLOG_SCHEMA_VERSION);
    // Statuses get the smallest label ids (one byte in a row).
    const ids = db.prepare("SELECT id FROM labels WHERE kind = 'status'").all()
      .map((r) => Number(r.id));
    assert.equal(ids.length, STATUSES.length);
    assert.ok(Math.max(...ids) < 128);
  } finally {
    db.close();
  }
  // Opening again migrates nothing and keeps the settings.
  const again = openQueryLogDb(log.path);
  try {
    assert.equal(pragma(again, "auto_vacuum"), 2);
  } finally {
    again.close();
  }
});

Deno.test("openQueryLogDb refuses a newer schema and leaves the file alone", async () => {
  await using log = await tempQueryLog();
  openQueryLogDb(log.path).close();
  const raw = new DatabaseSync(log.path);
  raw.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  raw.close();
  for (const readOnly of [false, true]) {
    assert.throws(
      () => openQueryLogDb(log.path, { readOnly }),
      (err: unknown) =>
        err instanceof QueryLogSchemaTooNewError &&
        err.message.includes(
          `query log schema version 99 is newer than this kudurru's ${QUERYLOG_SCHEMA_VERSION};`,
        ),
    );
  }
  const check = new DatabaseSync(log.path);
  try {
    assert.equal(
      check.prepare("SELECT value FROM meta WHERE key = 'schema_version'")
        .get()!.value,
      "99",
    );
  } finally {
    check.close();
  }
});

Deno.test("openQueryLogDb refuses a foreign SQLite file and a missing one when reading", async () => {
  await using log = await tempQueryLog();
  assert.throws(
    () => openQueryLogDb(log.path, { readOnly: true }),
    /No query log at ".*" yet/,
  );
  const foreign = new DatabaseSync(log.path);
  foreign.exec("CREATE TABLE something (x)");
  foreign.close();
  assert.throws(
    () => openQueryLogDb(log.path),
    /SQLite database but not a kudurru query log/,
  );
});

Deno.test("a damaged query log is recognised and moved aside with its WAL", async () => {
  await using log = await tempQueryLog();
  Deno.writeFileSync(log.path, crypto.getRandomValues(new Uint8Array(8192)));
  let error: unknown;
  try {
    openQueryLogDb(log.path).close();
  } catch (err) {
    error = err;
  }
  assert.ok(isDamagedDatabaseError(error), String(error));
  assert.ok(
    !isDamagedDatabaseError(new QueryLogSchemaTooNewError(log.path, 9)),
  );
  Deno.writeTextFileSync(log.path + "-wal", "junk");
  const aside = moveAsideDamaged(log.path, new Date("2030-01-01T00:00:00Z"));
  assert.equal(aside, `${log.path}.damaged-2030-01-01T00-00-00-000Z`);
  assert.equal(Deno.readTextFileSync(aside + "-wal"), "junk");
  const fresh = openQueryLogDb(log.path);
  fresh.close();
});
