/**
 * Schema version 3 of state.db: the audit row of every write says how the
 * caller proved who it is (`authorization`), where it called from
 * (`client`) and the object before and after the change (`before`,
 * `after`: JSON, secrets masked by audit_body.ts). Rows written before the
 * migration keep NULL there. Two indexes serve the audit reads by actor
 * and by time (sqlite_audit.ts); the existing audit_object serves those by
 * object. To ship it: append MIGRATION_V3 to MIGRATIONS in sqlite_schema.ts,
 * set SCHEMA_VERSION to 3 in store.ts, and write audit rows with
 * AUDIT_INSERT_V3 / auditInsertValues.
 */
import type { SQLInputValue } from "node:sqlite";
import type { ObjectKey } from "../../api/v1alpha1/meta.ts";
import type { Migration } from "../../sqlite/migrations.ts";
import type { AuditExtras } from "../audit_query.ts";
import type { AuditEntry } from "../backend.ts";

// "before" and "after" are SQLite keywords (triggers): quoted everywhere.
const SCHEMA_V3 = `
ALTER TABLE audit ADD COLUMN authorization TEXT;
ALTER TABLE audit ADD COLUMN client TEXT;
ALTER TABLE audit ADD COLUMN "before" TEXT;
ALTER TABLE audit ADD COLUMN "after" TEXT;
CREATE INDEX audit_actor ON audit (actor);
CREATE INDEX audit_time ON audit (time);
`;

export const MIGRATION_V3: Migration = {
  to: 3,
  description:
    "audit rows carry the authorization, the client address and the object before and after",
  up(db) {
    db.exec(SCHEMA_V3);
  },
};

/** The audit insert of schema 3 (object writes and runtime values alike). */
export const AUDIT_INSERT_V3 =
  `INSERT INTO audit (time, actor, manager, action, kind, namespace, name, resource_version, generation, authorization, client, "before", "after")
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The values of AUDIT_INSERT_V3 for one row; absent extras are NULL. */
export function auditInsertValues(
  entry: AuditEntry & AuditExtras,
  key: ObjectKey,
  resourceVersion: number,
): SQLInputValue[] {
  return [
    entry.time,
    entry.actor,
    entry.manager,
    entry.action,
    key.kind,
    key.namespace,
    key.name,
    resourceVersion,
    entry.generation,
    entry.authorization ?? null,
    entry.client ?? null,
    entry.before === undefined ? null : JSON.stringify(entry.before),
    entry.after === undefined ? null : JSON.stringify(entry.after),
  ];
}
