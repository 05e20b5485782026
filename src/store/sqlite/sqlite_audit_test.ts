import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateSchema, readSchemaVersion } from "../../sqlite/migrations.ts";
import { auditBodies } from "../audit_body.ts";
import { zone } from "../conformance_fixtures.ts";
import { SqliteAuditTable } from "./sqlite_audit.ts";
import { MIGRATIONS } from "./sqlite_schema.ts";
import {
  AUDIT_INSERT_V3,
  auditInsertValues,
  MIGRATION_V3,
} from "./sqlite_schema_v3.ts";

Deno.test("sqlite schema v3 adds the audit columns; old rows read without them, new rows with", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-audit-" });
  const path = join(dir, "state.db");
  const db = new DatabaseSync(path);
  try {
    // A file as kudurru wrote it at schema 2, with one audit row.
    const upTo2 = MIGRATIONS.filter((m) => m.to <= 2);
    migrateSchema(db, path, upTo2, 2);
    db.prepare(
      `INSERT INTO audit (time, actor, manager, action, kind, namespace, name, resource_version, generation)
       VALUES ('2026-06-01T11:00:00.000Z', 'alice', 'api', 'create', 'DNSZone', '', 'a', 1, 1)`,
    ).run();
    assert.equal(
      new SqliteAuditTable(db).query().items[0]!.actor,
      "alice",
      "the reader serves a schema 2 file",
    );
    migrateSchema(db, path, [...upTo2, MIGRATION_V3], 3);
    assert.equal(readSchemaVersion(db, path), 3);
    const before = zone("a");
    const after = zone("a", "b.example.");
    db.prepare(AUDIT_INSERT_V3).run(
      ...auditInsertValues(
        {
          time: "2026-06-01T12:00:00.000Z",
          actor: "bob",
          manager: "api",
          action: "update",
          generation: 2,
          authorization: "token abc",
          client: "2001:db8::7",
          ...auditBodies(before, after),
        },
        { kind: "DNSZone", namespace: "", name: "a" },
        2,
      ),
    );
    const items = new SqliteAuditTable(db).query().items;
    assert.deepEqual(items.map((r) => [r.actor, r.client ?? null]), [
      ["bob", "2001:db8::7"],
      ["alice", null],
    ]);
    assert.equal(items[0]!.authorization, "token abc");
    assert.deepEqual(items[0]!.before, before);
    assert.deepEqual(items[0]!.after, after);
    assert.equal(Object.hasOwn(items[1]!, "before"), false);
    const indexes = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'",
    ).all().map((r) => String(r.name)).sort();
    assert.deepEqual(indexes, ["audit_actor", "audit_object", "audit_time"]);
    // The indexes serve the reads: no full scan for an actor.
    const plan = db.prepare(
      "EXPLAIN QUERY PLAN SELECT id FROM audit WHERE actor = ? ORDER BY id DESC LIMIT 10",
    ).all("bob").map((r) => String(r.detail)).join("; ");
    assert.match(plan, /audit_actor/);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
