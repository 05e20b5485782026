/**
 * The memory driver's audit reader: its audit list, newest first, with the
 * position in the list (from 1) as the row id.
 */
import {
  type AuditExtras,
  type AuditPage,
  auditPageOf,
  type AuditQuery,
  type AuditRecord,
  auditRowMatches,
  checkAuditQuery,
} from "../audit_query.ts";
import type { MemoryAuditRow } from "./memory_store.ts";

/** One page of `rows` (oldest first, as the memory driver appends them). */
export function queryMemoryAudit(
  rows: readonly (MemoryAuditRow & AuditExtras)[],
  query: AuditQuery = {},
): AuditPage {
  const q = checkAuditQuery(query);
  const found: AuditRecord[] = [];
  const top = q.beforeId === undefined
    ? rows.length
    : Math.min(rows.length, q.beforeId - 1);
  for (let i = top - 1; i >= 0 && found.length <= q.limit; i--) {
    const record = memoryAuditRecord(rows[i]!, i + 1);
    if (auditRowMatches(record, record.id, q)) found.push(record);
  }
  return auditPageOf(found, q.limit);
}

function memoryAuditRecord(
  row: MemoryAuditRow & AuditExtras,
  id: number,
): AuditRecord {
  const record: AuditRecord = {
    id,
    time: row.time,
    actor: row.actor,
    manager: row.manager,
    action: row.action,
    kind: row.key.kind,
    namespace: row.key.namespace,
    name: row.key.name,
    resourceVersion: row.resourceVersion,
    generation: row.generation,
  };
  if (row.authorization !== undefined) {
    record.authorization = row.authorization;
  }
  if (row.client !== undefined) record.client = row.client;
  if (row.before !== undefined) record.before = structuredClone(row.before);
  if (row.after !== undefined) record.after = structuredClone(row.after);
  return record;
}
