/**
 * Reading the `audit` table of state.db: newest first (by id, the
 * AUTOINCREMENT key, so no id is ever handed out twice), filtered in SQL,
 * one row more than the page to know whether another page follows. It reads
 * the v3 columns (sqlite_schema_v3.ts) when the file has them, so it serves
 * a file of either layout.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import {
  type AuditPage,
  auditPageOf,
  type AuditQuery,
  type AuditRecord,
  checkAuditQuery,
  type CheckedAuditQuery,
} from "../audit_query.ts";

const BASE_COLUMNS =
  "id, time, actor, manager, action, kind, namespace, name, resource_version, generation";
const V3_COLUMNS = `, authorization, client, "before", "after"`;

/** The filters of a query as SQL conditions, each with its named parameter. */
const CONDITIONS: readonly [keyof CheckedAuditQuery, string][] = [
  ["kind", "kind = :kind"],
  ["namespace", "namespace = :namespace"],
  ["name", "name = :name"],
  ["actor", "actor = :actor"],
  ["action", "action = :action"],
  ["since", "time >= :since"],
  ["id", "id = :id"],
  ["beforeId", "id < :beforeId"],
];

export class SqliteAuditTable {
  readonly #hasV3: boolean;
  /** Prepared statements by the filters they have (at most 2^8 shapes). */
  readonly #statements = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {
    const columns = db.prepare("PRAGMA table_info(audit)").all()
      .map((r) => String(r.name));
    this.#hasV3 = columns.includes("client");
  }

  /** One page; throws InvalidAuditQueryError for a bad limit, time or token. */
  query(query: AuditQuery = {}): AuditPage {
    const q = checkAuditQuery(query);
    const used = CONDITIONS.filter(([field]) => q[field] !== undefined);
    const params: Record<string, SQLInputValue> = { limit: q.limit + 1 };
    for (const [field] of used) params[field] = q[field] as SQLInputValue;
    const rows = this.#statement(used).all(params);
    return auditPageOf(rows.map((r) => this.#record(r)), q.limit);
  }

  #statement(used: readonly [string, string][]): StatementSync {
    const shape = used.map(([field]) => field).join(",");
    let statement = this.#statements.get(shape);
    if (statement === undefined) {
      const where = used.length === 0
        ? ""
        : ` WHERE ${used.map(([, sql]) => sql).join(" AND ")}`;
      statement = this.db.prepare(
        `SELECT ${BASE_COLUMNS}${
          this.#hasV3 ? V3_COLUMNS : ""
        } FROM audit${where} ORDER BY id DESC LIMIT :limit`,
      );
      this.#statements.set(shape, statement);
    }
    return statement;
  }

  #record(r: Record<string, unknown>): AuditRecord {
    const record: AuditRecord = {
      id: Number(r.id),
      time: String(r.time),
      actor: String(r.actor),
      manager: String(r.manager),
      action: String(r.action),
      kind: String(r.kind),
      namespace: String(r.namespace),
      name: String(r.name),
      resourceVersion: Number(r.resource_version),
      generation: Number(r.generation),
    };
    if (!this.#hasV3) return record;
    if (r.authorization != null) record.authorization = String(r.authorization);
    if (r.client != null) record.client = String(r.client);
    if (r.before != null) record.before = JSON.parse(String(r.before));
    if (r.after != null) record.after = JSON.parse(String(r.after));
    return record;
  }
}
