/**
 * The difference between two versions of a zone, as IXFR sends it (RFC 1995
 * §4): the old SOA, the records taken away, the new SOA, the records put in.
 * Records are compared the way RFC 4034 §6.2 puts them in canonical form:
 * owner (ASCII case folded), type, class, and the record data in wire form
 * with names whole, lowercased for the types that section lists (MX, NS,
 * SRV… but not SVCB/HTTPS). So a target that changes only in case is no
 * change, while TXT text is compared as written.
 *
 * A TTL change is every old record of the RRset taken away and every new
 * one put in: IXFR has no other way to say it (a record is deleted by its
 * data and added with its TTL), and it is what Knot 3.2.6 sends for it.
 *
 * Time is linear in the zone size for zones sorted as ZoneContent promises:
 * both versions are walked at once, pairing RRsets of one owner, type and
 * class; what the walk cannot pair is matched through a Map; only paired
 * RRsets whose data is not structurally identical have their records
 * encoded to compare them. The result shares RRset and rdata objects with
 * the two versions: they are plain data, never changed in place.
 */
import type { RecordData, RRSet } from "../dns/rrset.ts";
import {
  canonicalRdataKey,
  uncompressedNameLength,
  uncompressedRdataLength,
} from "../dns/wire/rdata_canonical.ts";
import { compareNames } from "./canonical_order.ts";
import type { ZoneContent } from "./types.ts";

const SOA = 6;
const IN = 1;

/** What changed from one serial of a zone to the next. */
export interface ZoneDiff {
  fromSerial: number;
  toSerial: number;
  /** The apex SOA RRset of the old version. */
  fromSoa: RRSet;
  /** The apex SOA RRset of the new version. */
  toSoa: RRSet;
  /** Records of the old version not in the new, by owner/type/class/TTL, canonical order. */
  removed: RRSet[];
  /** Records of the new version not in the old, grouped and ordered the same way. */
  added: RRSet[];
}

/**
 * What changed from `before` to `after`, the apex SOA apart (it is
 * fromSoa/toSoa, and its serial the diff's serials).
 *
 * @throws {TypeError} when the two are not one zone or one has no apex SOA
 */
export function diffZones(before: ZoneContent, after: ZoneContent): ZoneDiff {
  if (before.name.toLowerCase() !== after.name.toLowerCase()) {
    throw new TypeError(
      `Cannot diff zone "${before.name}" against zone "${after.name}"`,
    );
  }
  const fromSoa = apexSoa(before);
  const toSoa = apexSoa(after);
  const removed: RRSet[] = [];
  const added: RRSet[] = [];
  const pair = (was: RRSet, now: RRSet) => {
    if (was.ttl !== now.ttl) {
      compareRecords(was, undefined, removed, added);
      compareRecords(undefined, now, removed, added);
    } else if (!sameRdataList(was.rdata, now.rdata)) {
      compareRecords(was, now, removed, added);
    }
  };
  const unpaired = mergeWalk(
    before.rrsets.filter((r) => r !== fromSoa),
    after.rrsets.filter((r) => r !== toSoa),
    pair,
  );
  const old = byKey(unpaired.was);
  for (const [key, now] of byKey(unpaired.now)) {
    const was = old.get(key);
    old.delete(key);
    if (was === undefined) compareRecords(undefined, now, removed, added);
    else pair(was, now);
  }
  for (const was of old.values()) {
    compareRecords(was, undefined, removed, added);
  }
  return {
    fromSerial: soaSerial(fromSoa),
    toSerial: soaSerial(toSoa),
    fromSoa,
    toSoa,
    removed: canonicalOrder(removed),
    added: canonicalOrder(added),
  };
}

/**
 * Octets the difference takes in an IXFR (RFC 1995 §4: old SOA, removed
 * records, new SOA, added records) with every name whole; compression
 * makes the real transfer smaller, so this is an upper bound. Counting
 * stops once past `limit` (the journal's cap), with a result over it.
 */
export function diffSize(
  diff: ZoneDiff,
  { limit = Infinity }: { limit?: number } = {},
): number {
  let octets = 0;
  for (
    const rrset of [diff.fromSoa, diff.toSoa, ...diff.removed, ...diff.added]
  ) {
    // Owner, then type, class, TTL and RDLENGTH (RFC 1035 §4.1.3).
    const perRecord = uncompressedNameLength(rrset.name) + 10;
    for (const rdata of rrset.rdata) {
      octets += perRecord + uncompressedRdataLength(rdata);
    }
    if (octets > limit) return octets;
  }
  return octets;
}

function apexSoa(zone: ZoneContent): RRSet {
  const apex = zone.name.toLowerCase();
  const soa = zone.rrsets.find((r) =>
    r.type === SOA && r.name.toLowerCase() === apex
  );
  if (soa === undefined || soa.rdata[0]?.type !== "SOA") {
    throw new TypeError(`Cannot diff zone "${zone.name}": it has no apex SOA`);
  }
  return soa;
}

function soaSerial(soa: RRSet): number {
  const rdata = soa.rdata[0]!;
  return rdata.type === "SOA" ? rdata.serial : 0;
}

/**
 * Pairs the RRsets of one owner, type and class in two lists sorted as
 * ZoneContent is (canonical name order, then type), walking both at once:
 * at each step the names are usually the same string, and the canonical
 * comparison runs only where they differ, so a zone with few changes costs
 * about one string comparison per RRset. What it cannot pair (RRsets that
 * came or went, or lists not in that order) comes back for matching by key.
 */
function mergeWalk(
  was: RRSet[],
  now: RRSet[],
  pair: (was: RRSet, now: RRSet) => void,
): { was: RRSet[]; now: RRSet[] } {
  const unpaired = { was: [] as RRSet[], now: [] as RRSet[] };
  let i = 0;
  let j = 0;
  while (i < was.length && j < now.length) {
    const a = was[i]!;
    const b = now[j]!;
    const order = a.name === b.name
      ? a.type - b.type || (a.class ?? IN) - (b.class ?? IN)
      : compareRRSets(a, b);
    if (order === 0) {
      pair(a, b);
      i++;
      j++;
    } else if (order < 0) {
      unpaired.was.push(a);
      i++;
    } else {
      unpaired.now.push(b);
      j++;
    }
  }
  // concat, not push(...): the rest may be a whole zone, too many arguments.
  return {
    was: unpaired.was.concat(was.slice(i)),
    now: unpaired.now.concat(now.slice(j)),
  };
}

/** Canonical name order (RFC 4034 §6.1), then type, then class. */
function compareRRSets(a: RRSet, b: RRSet): number {
  return compareNames(a.name, b.name) || a.type - b.type ||
    (a.class ?? IN) - (b.class ?? IN);
}

/**
 * RRsets keyed by type, class, TTL and owner (case folded); two RRsets
 * with one key (never built by content.ts) are merged.
 */
function byKey(rrsets: RRSet[]): Map<string, RRSet> {
  const keyed = new Map<string, RRSet>();
  for (const rrset of rrsets) {
    // The name last: it may hold a space (`a\ b`), the numbers cannot.
    const key = `${rrset.type} ${
      rrset.class ?? IN
    } ${rrset.ttl} ${rrset.name.toLowerCase()}`;
    const seen = keyed.get(key);
    keyed.set(
      key,
      seen === undefined
        ? rrset
        : { ...seen, rdata: [...seen.rdata, ...rrset.rdata] },
    );
  }
  return keyed;
}

/**
 * Adds to `removed` the records of `was` that `now` lacks and to `added`
 * those of `now` that `was` lacks, each as an RRset with `now`'s or `was`'s
 * owner, type, class and TTL; either may be missing (no such RRset), and
 * then the other goes whole.
 */
function compareRecords(
  was: RRSet | undefined,
  now: RRSet | undefined,
  removed: RRSet[],
  added: RRSet[],
): void {
  if (was === undefined || now === undefined) {
    if (was !== undefined && was.rdata.length > 0) removed.push(was);
    if (now !== undefined && now.rdata.length > 0) added.push(now);
    return;
  }
  const oldKeys = canonicalRecords(was);
  const newKeys = canonicalRecords(now);
  const gone = [...oldKeys].filter(([key]) => !newKeys.has(key));
  const come = [...newKeys].filter(([key]) => !oldKeys.has(key));
  if (gone.length > 0) removed.push(subset(was, gone));
  if (come.length > 0) added.push(subset(now, come));
}

/** The RRset's records by canonical data, duplicates dropped, order kept. */
function canonicalRecords(rrset: RRSet): Map<string, RecordData> {
  const records = new Map<string, RecordData>();
  for (const rdata of rrset.rdata) {
    const key = canonicalRdataKey(rdata);
    if (!records.has(key)) records.set(key, rdata);
  }
  return records;
}

function subset(rrset: RRSet, records: [string, RecordData][]): RRSet {
  return { ...rrset, rdata: records.map(([, rdata]) => rdata) };
}

/**
 * RRsets in canonical name order (RFC 4034 §6.1), then type, class and TTL.
 * The walk over sorted zones gives them mostly in order already: checking
 * costs one comparison per RRset, sorting only runs when needed.
 */
function canonicalOrder(rrsets: RRSet[]): RRSet[] {
  const compare = (a: RRSet, b: RRSet) => compareRRSets(a, b) || a.ttl - b.ttl;
  for (let i = 1; i < rrsets.length; i++) {
    if (compare(rrsets[i - 1]!, rrsets[i]!) > 0) return rrsets.sort(compare);
  }
  return rrsets;
}

/**
 * True when the two lists hold the same data in the same order and
 * spelling: then they are surely the same records, without encoding them.
 * Anything else (order, case, escapes) goes to the canonical comparison.
 */
function sameRdataList(a: RecordData[], b: RecordData[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!sameRdata(a[i]!, b[i]!)) return false;
  }
  return true;
}

/** Field by field for the common shapes, structurally for the others. */
function sameRdata(a: RecordData, b: RecordData): boolean {
  switch (a.type) {
    case "A":
    case "AAAA":
      return b.type === a.type && a.address === b.address;
    case "NS":
    case "CNAME":
    case "PTR":
    case "DNAME":
      return b.type === a.type && a.target === b.target;
    case "MX":
      return b.type === "MX" && a.preference === b.preference &&
        a.exchange === b.exchange;
    case "TXT":
      return b.type === "TXT" && a.strings.length === b.strings.length &&
        a.strings.every((text, i) => sameOctets(text, b.strings[i]!));
    default:
      return sameValue(a, b);
  }
}

function sameOctets(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Structural equality over the plain data RecordData is made of. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array &&
      sameOctets(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => sameValue(item, b[i]));
  }
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  const keys = Object.keys(aRecord);
  return keys.length === Object.keys(bRecord).length &&
    keys.every((key) =>
      Object.hasOwn(bRecord, key) && sameValue(aRecord[key], bRecord[key])
    );
}
