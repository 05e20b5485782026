/**
 * A zone's records as the flat list shows them: one row per (record set,
 * endpoint, target), in one total order, so that the list can be paged
 * with a keyset `continue` token that names the last row sent.
 */
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import type { DNSRecordSet } from "../../api/v1alpha1/dnsrecordset.ts";
import { typeCode } from "../../dns/rdata_text.ts";
import {
  canonicalNameKey,
  compareNameKeys,
} from "../../zone/canonical_order.ts";
import {
  keyOf,
  ownerOf,
  type RecordRow,
  recordSetsOf,
  refOf,
} from "./zone_records.ts";

/**
 * Every record of the zone's record sets, one row per (record set,
 * endpoint, target), in the order of {@linkcode compareRows}.
 */
export function recordRows(
  zone: DNSZone,
  sets: readonly DNSRecordSet[],
): RecordRow[] {
  const defaultTTL = zone.spec?.defaultTTL ?? 300;
  const rows: Sortable[] = [];
  const keys = new Map<string, number[][]>();
  for (const set of recordSetsOf(zone, sets)) {
    for (const endpoint of set.spec?.endpoints ?? []) {
      const name = ownerOf(endpoint.dnsName);
      let key = keys.get(name);
      if (key === undefined) {
        key = canonicalNameKey(name);
        keys.set(name, key);
      }
      for (const data of endpoint.targets) {
        rows.push({
          code: typeCode(endpoint.recordType) ?? 0,
          key,
          row: {
            recordSet: refOf(set),
            managedBy: set.metadata.managedBy ?? "",
            name,
            type: endpoint.recordType,
            ttl: endpoint.recordTTL ?? defaultTTL,
            data,
            ...(endpoint.kudurru?.disabled === true &&
              { disabled: true as const }),
          },
        });
      }
    }
  }
  rows.sort(compareRows);
  return rows.map((r) => r.row);
}

/** A row with what it sorts by. */
interface Sortable {
  row: RecordRow;
  /** canonicalNameKey of row.name. */
  key: number[][];
  /** The type's code. */
  code: number;
}

const sortable = (row: RecordRow): Sortable => ({
  row,
  key: canonicalNameKey(row.name),
  code: typeCode(row.type) ?? 0,
});

/**
 * The flat list's order, total so that a page can end anywhere: owner in
 * canonical order (RFC 4034 §6.1), type code, record set, data, TTL.
 */
function compareRows(a: Sortable, b: Sortable): number {
  return compareNameKeys(a.key, b.key) || a.code - b.code ||
    compareText(keyOf(a.row.recordSet), keyOf(b.row.recordSet)) ||
    compareText(a.row.data, b.row.data) || a.row.ttl - b.row.ttl;
}

const compareText = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;

/** A `continue` token that is not one this list gave out. */
export class BadRowCursorError extends Error {
  constructor() {
    super("continue is not a token this list gave out");
    this.name = "BadRowCursorError";
  }
}

/** The `continue` token of a page that ends with `row`. */
export function rowCursor(row: RecordRow): string {
  const { recordSet, name, type, data, ttl } = row;
  const text = JSON.stringify([
    recordSet.namespace,
    recordSet.name,
    name,
    type,
    data,
    ttl,
  ]);
  return btoa(String.fromCodePoint(...new TextEncoder().encode(text)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The rows (sorted by recordRows) after the one a `continue` token names;
 * a row removed since still marks its place.
 *
 * @throws {BadRowCursorError} for a token this list did not give out
 */
export function rowsAfter(
  rows: readonly RecordRow[],
  token: string,
): RecordRow[] {
  let at: Sortable;
  try {
    const bytes = Uint8Array.from(
      atob(token.replaceAll("-", "+").replaceAll("_", "/")),
      (ch) => ch.codePointAt(0)!,
    );
    const [namespace, name, owner, type, data, ttl] = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    );
    if (
      ![namespace, name, owner, type, data].every((v) =>
        typeof v === "string"
      ) || !Number.isInteger(ttl)
    ) {
      throw new BadRowCursorError();
    }
    at = sortable({
      recordSet: { namespace, name },
      managedBy: "",
      name: owner,
      type,
      data,
      ttl,
    });
  } catch {
    throw new BadRowCursorError();
  }
  // The first row past the token's: a binary search over the sorted rows.
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareRows(sortable(rows[mid]!), at) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return rows.slice(lo);
}
