/**
 * The `runtime` table of state.db (schema version 2): small runtime values
 * such as blocking.disabledUntil. A write and its audit row commit together;
 * reads go to the file every time, so another process's write (the CLI while
 * `kudurru serve` runs) is seen at the next read.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type AuditEntry, RUNTIME_AUDIT_KIND } from "../backend.ts";
import { runtimeAuditBodies } from "../audit_body.ts";
import { AUDIT_INSERT_V3, auditInsertValues } from "./sqlite_schema_v3.ts";
import type { ObjectKey, RuntimeValue } from "../store.ts";
import { rollback } from "../../sqlite/migrations.ts";

export class SqliteRuntimeTable {
  #get: StatementSync;
  #put: StatementSync;
  #delete: StatementSync;
  #resourceVersion: StatementSync;
  #addAudit: StatementSync;

  constructor(private readonly db: DatabaseSync) {
    this.#get = db.prepare(
      "SELECT value, updated_at, actor FROM runtime WHERE key = ?",
    );
    this.#put = db.prepare(
      `INSERT INTO runtime (key, value, updated_at, actor) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value,
         updated_at = excluded.updated_at, actor = excluded.actor`,
    );
    this.#delete = db.prepare("DELETE FROM runtime WHERE key = ?");
    this.#resourceVersion = db.prepare(
      "SELECT value FROM meta WHERE key = 'resource_version'",
    );
    this.#addAudit = db.prepare(AUDIT_INSERT_V3);
  }

  read(key: string): RuntimeValue | undefined {
    const row = this.#get.get(key);
    if (row === undefined) return undefined;
    const value: RuntimeValue = {
      key,
      value: String(row.value),
      updatedAt: String(row.updated_at),
    };
    if (row.actor !== null) value.actor = String(row.actor);
    return value;
  }

  /** An audit row on its own, at the current resourceVersion (StoreBackend.appendAudit). */
  appendAudit(key: ObjectKey, audit: AuditEntry): void {
    const rv = Number(this.#resourceVersion.get()?.value ?? 0);
    this.#addAudit.run(...auditInsertValues(audit, key, rv));
  }

  /** Stores (or, for undefined, deletes) a value; false when a delete found nothing. */
  write(
    key: string,
    value: RuntimeValue | undefined,
    audit: AuditEntry,
  ): boolean {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const before = this.read(key);
      if (value === undefined) {
        if (Number(this.#delete.run(key).changes) === 0) {
          this.db.exec("COMMIT");
          return false;
        }
      } else {
        this.#put.run(key, value.value, value.updatedAt, value.actor ?? null);
      }
      // Runtime writes take no resourceVersion; the row records the current one.
      const rv = Number(this.#resourceVersion.get()?.value ?? 0);
      this.#addAudit.run(
        ...auditInsertValues(
          { ...audit, ...runtimeAuditBodies(before, value) },
          { kind: RUNTIME_AUDIT_KIND, namespace: "", name: key },
          rv,
        ),
      );
      this.db.exec("COMMIT");
      return true;
    } catch (err) {
      rollback(this.db);
      throw err;
    }
  }
}
