/**
 * Reading the audit trail: the query every driver answers (newest first,
 * keyset pages over the row id, so a page never repeats or skips a row
 * while new rows are written), the row as it is read back, and the checks
 * a query passes before a driver sees it. The memory driver reads its audit
 * list (memory/memory_audit.ts), the sqlite driver its `audit` table
 * (sqlite/sqlite_audit.ts).
 */

/** The filters and page of one audit read; every filter is an exact match. */
export interface AuditQuery {
  /** Only rows of this kind ("DNSZone", "Runtime" for runtime values). */
  kind?: string;
  /** Only rows in this namespace ("" for cluster-scoped objects). */
  namespace?: string;
  /** Only rows of objects (or runtime keys) of this name. */
  name?: string;
  /** Only rows of this actor ("alice", "serviceaccount:ci", "cli", "file-loader"). */
  actor?: string;
  /** Only rows of this action (create, update, delete, finalize, status, set). */
  action?: string;
  /** Only rows at or after this time (ISO 8601). */
  since?: string;
  /** Only the row with this id. */
  id?: number;
  /** Page size. @default 100, at most 1000 */
  limit?: number;
  /** The `continue` of the previous page. */
  continue?: string;
}

/**
 * What the v3 audit columns add to a row (sqlite_schema_v3.ts): how the
 * caller proved who it is, where it called from, and the object before and
 * after the change (secrets masked, audit_body.ts).
 */
export interface AuditExtras {
  /** "session", "token <id>", "socket"; absent for writes that came from no request. */
  authorization?: string;
  /** The client's address, for API and control-socket writes. */
  client?: string;
  /** The object (or runtime value) before the change; absent for a create. */
  before?: unknown;
  /** The object (or runtime value) after the change; absent for a delete. */
  after?: unknown;
}

/** One audit row as read back; JSON-ready. */
export interface AuditRecord extends AuditExtras {
  /** Increases with every row written; the keyset of the pages. */
  id: number;
  time: string;
  actor: string;
  manager: string;
  action: string;
  kind: string;
  namespace: string;
  name: string;
  /** The store's resourceVersion after the change (for runtime values: when it was made). */
  resourceVersion: number;
  generation: number;
}

/** One page, newest first. */
export interface AuditPage {
  items: AuditRecord[];
  /** Present when older rows follow; pass back as AuditQuery.continue. */
  continue?: string;
}

/** A query after checkAuditQuery: the page bounds settled, the time in the stored form. */
export interface CheckedAuditQuery {
  kind?: string;
  namespace?: string;
  name?: string;
  actor?: string;
  action?: string;
  /** toISOString() form, so it compares as text with the stored times. */
  since?: string;
  id?: number;
  limit: number;
  /** Only rows with a smaller id (from the continue token). */
  beforeId?: number;
}

export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 1000;

/** A query the Store cannot answer (HTTP 400): a bad limit, time or token. */
export class InvalidAuditQueryError extends Error {
  constructor(readonly field: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidAuditQueryError";
  }
}

/**
 * The query with its bounds settled: limit 1-1000 (100 when absent), since
 * an ISO 8601 time, continue a token of this file. Throws
 * InvalidAuditQueryError naming the field.
 */
export function checkAuditQuery(q: AuditQuery = {}): CheckedAuditQuery {
  const limit = q.limit ?? AUDIT_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT) {
    throw new InvalidAuditQueryError(
      "limit",
      `limit must be a whole number from 1 to ${AUDIT_MAX_LIMIT}, not ${limit}`,
    );
  }
  const out: CheckedAuditQuery = { limit };
  for (
    const field of ["kind", "namespace", "name", "actor", "action"] as const
  ) {
    const value = q[field];
    if (value !== undefined) out[field] = value;
  }
  if (q.since !== undefined) {
    const ms = Date.parse(q.since);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(q.since) || !Number.isFinite(ms)) {
      throw new InvalidAuditQueryError(
        "since",
        `since must be an ISO 8601 time such as 2026-06-01T12:00:00Z, not "${q.since}"`,
      );
    }
    out.since = new Date(ms).toISOString();
  }
  if (q.id !== undefined) {
    if (!Number.isSafeInteger(q.id) || q.id < 1) {
      throw new InvalidAuditQueryError(
        "id",
        `id must be a positive whole number, not ${q.id}`,
      );
    }
    out.id = q.id;
  }
  if (q.continue !== undefined && q.continue !== "") {
    out.beforeId = decodeAuditContinue(q.continue);
  }
  return out;
}

/** The continue token after the row with id `lastId`: base64url of `{"before":id}`. */
export function encodeAuditContinue(lastId: number): string {
  return btoa(JSON.stringify({ before: lastId }))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The id a continue token names; throws InvalidAuditQueryError. */
export function decodeAuditContinue(token: string): number {
  try {
    const b64 = token.replaceAll("-", "+").replaceAll("_", "/");
    const parsed: unknown = JSON.parse(
      atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    );
    if (
      typeof parsed === "object" && parsed !== null && "before" in parsed &&
      Number.isSafeInteger(parsed.before) && (parsed.before as number) > 0
    ) {
      return parsed.before as number;
    }
  } catch (err) {
    throw badContinue(token, err);
  }
  throw badContinue(token);
}

function badContinue(token: string, cause?: unknown): InvalidAuditQueryError {
  return new InvalidAuditQueryError(
    "continue",
    `Cannot resume reading the audit log: continue token "${token}" is malformed; read again without it`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * A page of `newestFirst` rows (already filtered, ids descending, at most
 * limit + 1 of them): the first `limit`, and a token when one more was there.
 */
export function auditPageOf(
  newestFirst: readonly AuditRecord[],
  limit: number,
): AuditPage {
  if (newestFirst.length <= limit) return { items: [...newestFirst] };
  const items = newestFirst.slice(0, limit);
  return { items, continue: encodeAuditContinue(items[items.length - 1]!.id) };
}

/** Whether `row` passes the query's filters (the page bounds aside). */
export function auditRowMatches(
  row: Omit<AuditRecord, "id">,
  id: number,
  q: CheckedAuditQuery,
): boolean {
  return (q.kind === undefined || row.kind === q.kind) &&
    (q.namespace === undefined || row.namespace === q.namespace) &&
    (q.name === undefined || row.name === q.name) &&
    (q.actor === undefined || row.actor === q.actor) &&
    (q.action === undefined || row.action === q.action) &&
    (q.since === undefined || row.time >= q.since) &&
    (q.id === undefined || id === q.id) &&
    (q.beforeId === undefined || id < q.beforeId);
}
