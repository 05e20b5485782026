/**
 * The sqlite driver: state.db through node:sqlite, WAL mode. Every mutation
 * writes its object row, change row and audit row in one transaction; a
 * runtime value its runtime row and audit row. Watches
 * also poll the changes table, so writes by another process (the CLI while
 * `kudurru serve` runs) reach them.
 */
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { KObject, ObjectKey } from "../../api/v1alpha1/meta.ts";
import type { Logger } from "../../log/logger.ts";
import { defaultValidator, type ObjectValidator } from "../apply_rules.ts";
import {
  type AuditEntry,
  type BackendInfo,
  type FeedEntry,
  type StoreBackend,
} from "../backend.ts";
import { createBackedStore } from "../backed_store.ts";
import type { PagePosition } from "../pagination.ts";
import {
  ExpiredError,
  type RuntimeValue,
  SCHEMA_VERSION,
  type Store,
} from "../store.ts";
import { SqliteRuntimeTable } from "./sqlite_runtime.ts";
import { SqliteAuditTable } from "./sqlite_audit.ts";
import { AUDIT_INSERT_V3, auditInsertValues } from "./sqlite_schema_v3.ts";
import type { AuditPage, AuditQuery } from "../audit_query.ts";
import { MIGRATIONS } from "./sqlite_schema.ts";
import {
  migrateSchema,
  readSchemaVersion,
  rollback,
  SchemaTooNewError,
} from "../../sqlite/migrations.ts";

export interface SqliteStoreOptions {
  /** @default the kudurru.io/v1alpha1 schemas */
  validate?: ObjectValidator;
  /** @default () => new Date() */
  now?: () => Date;
  /** Changes kept for watch resume. @default 10000 */
  feedLimit?: number;
  /** How often watchers look for other processes' writes. @default 1000 */
  pollIntervalMs?: number;
  /** How long a write waits for another process's lock. @default 5000 */
  busyTimeoutMs?: number;
  /** The name leader() reports. @default the hostname, or "local" */
  node?: string;
  logger?: Logger;
}

type FeedType = FeedEntry["type"];

class SqliteBackend implements StoreBackend {
  readonly driver = "sqlite";
  #read: StatementSync;
  #scanAll: StatementSync;
  #scanNamespace: StatementSync;
  #pageAll: StatementSync;
  #pageAllAfter: StatementSync;
  #pageNamespace: StatementSync;
  #pageNamespaceAfter: StatementSync;
  #kinds: StatementSync;
  #getMeta: StatementSync;
  #setMeta: StatementSync;
  #upsert: StatementSync;
  #remove: StatementSync;
  #addChange: StatementSync;
  #trim: StatementSync;
  #changes: StatementSync;
  #addAudit: StatementSync;
  #runtime: SqliteRuntimeTable;
  #audit: SqliteAuditTable;
  /** Open #snapshot calls: only the outermost begins and commits. */
  #snapshotDepth = 0;

  constructor(
    private readonly db: DatabaseSync,
    private readonly feedLimit: number,
  ) {
    this.#read = db.prepare(
      "SELECT body FROM objects WHERE kind = ? AND namespace = ? AND name = ?",
    );
    this.#scanAll = db.prepare(
      "SELECT body FROM objects WHERE kind = ? ORDER BY namespace, name",
    );
    this.#scanNamespace = db.prepare(
      "SELECT body FROM objects WHERE kind = ? AND namespace = ? ORDER BY name",
    );
    // Pages walk the primary key (kind, namespace, name): the row value
    // (namespace, name) > (?, ?) is a range on it, so a page reads its rows only.
    this.#pageAll = db.prepare(
      "SELECT body FROM objects WHERE kind = ? ORDER BY namespace, name LIMIT ?",
    );
    this.#pageAllAfter = db.prepare(
      "SELECT body FROM objects WHERE kind = ? AND (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?",
    );
    this.#pageNamespace = db.prepare(
      "SELECT body FROM objects WHERE kind = ? AND namespace = ? ORDER BY name LIMIT ?",
    );
    // Not (namespace, name) > (?, ?) here: SQLite would walk the namespace
    // from its start; scanPage compares the namespaces itself.
    this.#pageNamespaceAfter = db.prepare(
      "SELECT body FROM objects WHERE kind = ? AND namespace = ? AND name > ? ORDER BY name LIMIT ?",
    );
    this.#kinds = db.prepare("SELECT DISTINCT kind FROM objects");
    this.#getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
    this.#setMeta = db.prepare("UPDATE meta SET value = ? WHERE key = ?");
    this.#upsert = db.prepare(
      `INSERT INTO objects (kind, namespace, name, body, resource_version, generation, managed_by)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, namespace, name) DO UPDATE SET body = excluded.body,
         resource_version = excluded.resource_version, generation = excluded.generation,
         managed_by = excluded.managed_by`,
    );
    this.#remove = db.prepare(
      "DELETE FROM objects WHERE kind = ? AND namespace = ? AND name = ?",
    );
    this.#addChange = db.prepare(
      "INSERT INTO changes (resource_version, kind, namespace, name, type, body) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#trim = db.prepare("DELETE FROM changes WHERE resource_version <= ?");
    this.#changes = db.prepare(
      "SELECT resource_version, type, body FROM changes WHERE resource_version > ? ORDER BY resource_version",
    );
    this.#addAudit = db.prepare(AUDIT_INSERT_V3);
    this.#runtime = new SqliteRuntimeTable(db);
    this.#audit = new SqliteAuditTable(db);
  }

  #meta(key: string): string {
    return String(this.#getMeta.get(key)?.value ?? "");
  }

  /**
   * Runs fn in a read transaction, so its statements see one state of the
   * file; inside another call, in that one's transaction.
   */
  #snapshot<T>(fn: () => T): T {
    if (this.#snapshotDepth > 0) return fn();
    this.db.exec("BEGIN");
    this.#snapshotDepth++;
    try {
      return fn();
    } finally {
      this.#snapshotDepth--;
      this.db.exec("COMMIT");
    }
  }

  read(key: ObjectKey): KObject | undefined {
    const row = this.#read.get(key.kind, key.namespace, key.name);
    return row === undefined ? undefined : JSON.parse(String(row.body));
  }

  scan(
    kind: string,
    namespace?: string,
  ): { items: KObject[]; resourceVersion: number } {
    return this.#snapshot(() => {
      const rows = namespace === undefined
        ? this.#scanAll.all(kind)
        : this.#scanNamespace.all(kind, namespace);
      return {
        items: rows.map((r) => JSON.parse(String(r.body)) as KObject),
        resourceVersion: this.currentResourceVersion(),
      };
    });
  }

  scanPage(
    kind: string,
    namespace: string | undefined,
    after: PagePosition | undefined,
    limit: number,
  ): { items: KObject[]; resourceVersion: number } {
    return this.#snapshot(() => {
      // Names and namespaces are ASCII (meta.ts), where JavaScript's order
      // and SQLite's (bytes of UTF-8) agree.
      const rows = namespace === undefined
        ? after === undefined
          ? this.#pageAll.all(kind, limit)
          : this.#pageAllAfter.all(kind, after.namespace, after.name, limit)
        : after === undefined || after.namespace < namespace
        ? this.#pageNamespace.all(kind, namespace, limit)
        : after.namespace === namespace
        ? this.#pageNamespaceAfter.all(kind, namespace, after.name, limit)
        : []; // the namespace comes before the position
      return {
        items: rows.map((r) => JSON.parse(String(r.body)) as KObject),
        resourceVersion: this.currentResourceVersion(),
      };
    });
  }

  readTogether<T>(fn: () => T): T {
    return this.#snapshot(fn);
  }

  kinds(): string[] {
    return this.#kinds.all().map((r) => String(r.kind));
  }

  transact<T>(
    key: ObjectKey,
    decide: Parameters<StoreBackend["transact"]>[1],
  ): T {
    // IMMEDIATE takes the write lock before reading, so no other process can
    // change the object between the decision and the write.
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const rv = this.currentResourceVersion() + 1;
      const { mutation, result } = decide(this.read(key), rv);
      if (mutation !== undefined) {
        const obj = mutation.object;
        const body = JSON.stringify(obj);
        const a = mutation.audit;
        if (mutation.type === "Deleted") {
          this.#remove.run(key.kind, key.namespace, key.name);
        } else {
          this.#upsert.run(
            key.kind,
            key.namespace,
            key.name,
            body,
            rv,
            obj.metadata.generation ?? 0,
            obj.metadata.managedBy ?? "",
          );
        }
        this.#addChange.run(
          rv,
          key.kind,
          key.namespace,
          key.name,
          mutation.type,
          body,
        );
        this.#addAudit.run(...auditInsertValues(a, key, rv));
        this.#setMeta.run(String(rv), "resource_version");
        if (rv - this.feedLimit > Number(this.#meta("compacted"))) {
          this.#trim.run(rv - this.feedLimit);
          this.#setMeta.run(String(rv - this.feedLimit), "compacted");
        }
      }
      this.db.exec("COMMIT");
      return result as T;
    } catch (err) {
      rollback(this.db);
      throw err;
    }
  }

  currentResourceVersion(): number {
    return Number(this.#meta("resource_version"));
  }

  changesSince(
    resourceVersion: number,
  ): { changes: FeedEntry[]; resourceVersion: number } {
    return this.#snapshot(() => {
      const current = this.currentResourceVersion();
      if (resourceVersion >= current) {
        return { changes: [], resourceVersion: current };
      }
      if (resourceVersion < Number(this.#meta("compacted"))) {
        throw new ExpiredError(String(resourceVersion));
      }
      const changes = this.#changes.all(resourceVersion).map((r) => ({
        resourceVersion: Number(r.resource_version),
        type: String(r.type) as FeedType,
        object: JSON.parse(String(r.body)) as KObject,
      }));
      return { changes, resourceVersion: current };
    });
  }

  info(): BackendInfo {
    return {
      schemaVersion: Number(this.#meta("schema_version")),
      clusterID: this.#meta("cluster_id"),
      epoch: Number(this.#meta("epoch")),
    };
  }

  readRuntime(key: string): RuntimeValue | undefined {
    return this.#runtime.read(key);
  }

  writeRuntime(
    key: string,
    value: RuntimeValue | undefined,
    audit: AuditEntry,
  ): boolean {
    return this.#runtime.write(key, value, audit);
  }

  appendAudit(key: ObjectKey, audit: AuditEntry): void {
    this.#runtime.appendAudit(key, audit);
  }

  readAudit(query: AuditQuery): AuditPage {
    return this.#audit.query(query);
  }

  close(): void {
    this.db.close();
  }
}

function cannotOpen(path: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/not a database|malformed/i.test(message)) {
    return new Error(
      `Cannot open "${path}": it is not a readable SQLite database (${message}); move it aside or restore it from a backup, kudurru leaves it untouched`,
      { cause: err },
    );
  }
  // "Check the directory" would send someone with a full or failing disk
  // to look at permissions.
  if (
    /database or disk is full|SQLITE_FULL|No space left on device/i.test(
      message,
    )
  ) {
    return new Error(
      `Cannot open "${path}": ${message}; the disk is full: free space in ${
        dirname(path)
      }`,
      { cause: err },
    );
  }
  if (/disk I\/O error|Read-only file system/i.test(message)) {
    return new Error(
      `Cannot open "${path}": ${message}; the file system holding ${
        dirname(path)
      } may be read-only or failing`,
      { cause: err },
    );
  }
  return new Error(
    `Cannot open "${path}": ${message}; check that its directory exists and kudurru may write to it`,
    { cause: err },
  );
}

/**
 * Opens (creating or migrating) the state database at `path`. Throws
 * SchemaTooNewError for a file from a newer kudurru, and an Error naming the
 * path for a file that is not a database or a directory that cannot be written.
 */
// deno-lint-ignore require-await
export async function openSqliteStore(
  path: string,
  opts: SqliteStoreOptions = {},
): Promise<Store> {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (err) {
    throw cannotOpen(path, err);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
    // Check the version before anything writes: a newer file stays byte-for-byte untouched.
    const found = readSchemaVersion(db, path);
    if (found > SCHEMA_VERSION) {
      throw new SchemaTooNewError(path, found, SCHEMA_VERSION);
    }
    db.exec("PRAGMA journal_mode = WAL");
    migrateSchema(db, path, MIGRATIONS, SCHEMA_VERSION);
  } catch (err) {
    db.close();
    if (
      err instanceof SchemaTooNewError ||
      (err instanceof Error && err.message.startsWith("Cannot"))
    ) throw err;
    throw cannotOpen(path, err);
  }
  const backend = new SqliteBackend(db, opts.feedLimit ?? 10_000);
  return createBackedStore(backend, {
    validator: opts.validate ?? defaultValidator,
    pollIntervalMs: opts.pollIntervalMs ?? 1000,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.node !== undefined ? { node: opts.node } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}
