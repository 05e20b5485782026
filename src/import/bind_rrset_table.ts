/**
 * The RRsets of a zone file being imported, held compactly until they are
 * written. A million-record zone has about as many RRsets, and a record of
 * an RRset may come anywhere in the file, so all of them are held until
 * the file is read. As Endpoint objects (an object, its targets array,
 * and the Map entry and key that find it) they cost some 350 bytes each;
 * here an RRset is its owner (also the key that finds it), its target
 * (an array only when it has more than one), and a few integers in
 * parallel columns, some 150 bytes. An
 * Endpoint is built only when it is read (`slice`), and not kept.
 */
import {
  type DNSRecordSetSpec,
  type Endpoint,
  MAX_ENDPOINTS,
} from "../api/v1alpha1/dnsrecordset.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A string of its own, in one piece. The parser's names and the formatted
 * targets are joins and slices, which V8 keeps as references to their
 * parts (a slice keeps the whole piece of the file it was cut from): held
 * for a million RRsets, they cost some 40 MB more than flat copies
 * (bench/import, peak RSS 519-543 MB against 486-493 MB).
 */
function flatCopy(s: string): string {
  return decoder.decode(encoder.encode(s));
}

/** What `add` did with a record. */
export type Added = "added" | "duplicate" | "full";

/** RRsets past this many targets keep a Set of them (most hold one or two). */
const SEEN_AFTER = 8;

/**
 * A column of 32-bit integers that grows by doubling. Off the JS heap, and
 * half the size of a JS array's slots; a JS array's growth leaves its old
 * copies on the heap until the next full collection, which on a growing
 * heap comes late.
 */
class IntColumn {
  data = new Int32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

export class RRsetTable {
  /** The slot of each owner's first RRset; its others follow `#next`. */
  #byOwner: Map<string, number> | undefined = new Map();
  #next = new IntColumn();
  #owners: string[] = [];
  #codes = new IntColumn();
  /** One target as a string (the usual case), more as an array. */
  #targets: (string | string[])[] = [];
  /** The smallest TTL given, -1 when none was (a TTL is below 2^31). */
  #ttls = new IntColumn();
  /** The line of each RRset's first record, for the report. */
  #lines = new IntColumn();
  /** Records read for each RRset, duplicates included. */
  #records = new IntColumn();
  #seen = new Map<number, Set<string>>();
  /** The endpoint spelling of each type code met. */
  #types = new Map<number, string>();

  constructor(readonly maxTargets: number) {}

  /** RRsets held. */
  get size(): number {
    return this.#owners.length;
  }

  /**
   * Adds one record's target to the RRset of `owner` and `code` (created
   * at `line` if new). A target the RRset holds already is a duplicate;
   * past `maxTargets` the record is left out.
   */
  add(
    owner: string,
    code: number,
    type: string,
    target: string,
    ttl: number | undefined,
    line: number,
  ): Added {
    owner = flatCopy(owner);
    target = flatCopy(target);
    const byOwner = this.#byOwner;
    if (byOwner === undefined) throw new Error("the RRset table is sealed");
    const codes = this.#codes.data;
    const next = this.#next.data;
    let slot = byOwner.get(owner) ?? -1;
    let last = -1;
    while (slot >= 0 && codes[slot] !== code) {
      last = slot;
      slot = next[slot]!;
    }
    if (slot < 0) {
      slot = this.#owners.length;
      if (last >= 0) next[last] = slot;
      else byOwner.set(owner, slot);
      this.#next.push(-1);
      this.#owners.push(owner);
      this.#codes.push(code);
      this.#targets.push(target);
      this.#ttls.push(ttl ?? -1);
      this.#lines.push(line);
      this.#records.push(1);
      if (!this.#types.has(code)) this.#types.set(code, type);
      return "added";
    }
    this.#records.data[slot]!++;
    const held = this.#targets[slot]!;
    if (typeof held === "string") {
      if (held === target) return "duplicate";
      this.#targets[slot] = [held, target];
    } else {
      const seen = this.#seen.get(slot);
      if (seen?.has(target) ?? held.includes(target)) return "duplicate";
      if (held.length >= this.maxTargets) return "full";
      held.push(target);
      if (seen !== undefined) seen.add(target);
      else if (held.length > SEEN_AFTER) this.#seen.set(slot, new Set(held));
    }
    if (ttl !== undefined) {
      const ttls = this.#ttls.data;
      ttls[slot] = ttls[slot]! < 0 ? ttl : Math.min(ttls[slot]!, ttl);
    }
    return "added";
  }

  /**
   * Ends the adding: the index that finds an RRset by owner is let go,
   * and the RRsets `keep` refuses are dropped (it is given each endpoint,
   * the line of its first record and how many records it was read from).
   * What is left keeps file order.
   */
  seal(
    keep: (endpoint: Endpoint, line: number, records: number) => boolean,
  ): void {
    this.#byOwner = undefined;
    this.#next = new IntColumn();
    this.#seen.clear();
    const lines = this.#lines.data;
    const records = this.#records.data;
    const codes = this.#codes.data;
    const ttls = this.#ttls.data;
    let to = 0;
    for (let from = 0; from < this.#owners.length; from++) {
      if (!keep(this.#endpoint(from), lines[from]!, records[from]!)) continue;
      if (to !== from) {
        this.#owners[to] = this.#owners[from]!;
        codes[to] = codes[from]!;
        this.#targets[to] = this.#targets[from]!;
        ttls[to] = ttls[from]!;
      }
      to++;
    }
    this.#owners.length = to;
    this.#targets.length = to;
    this.#codes.length = to;
    this.#ttls.length = to;
    this.#lines = new IntColumn();
    this.#records = new IntColumn();
  }

  /** Targets held, over every RRset. */
  targetCount(): number {
    let count = 0;
    for (const t of this.#targets) {
      count += typeof t === "string" ? 1 : t.length;
    }
    return count;
  }

  /** RRsets [from, to) as new Endpoint objects. */
  slice(from = 0, to = this.size): Endpoint[] {
    const out: Endpoint[] = [];
    for (let i = from; i < Math.min(to, this.size); i++) {
      out.push(this.#endpoint(i));
    }
    return out;
  }

  #endpoint(slot: number): Endpoint {
    const held = this.#targets[slot]!;
    const ttl = this.#ttls.data[slot]!;
    return {
      dnsName: this.#owners[slot]!,
      recordType: this.#types.get(this.#codes.data[slot]!)!,
      targets: typeof held === "string" ? [held] : [...held],
      ...(ttl >= 0 && { recordTTL: ttl }),
    };
  }
}

/**
 * The specs of the DNSRecordSets that hold `table`'s RRsets, MAX_ENDPOINTS
 * each, in zone (the DNSZone object) `zone`. Their `endpoints` is a getter that builds the endpoints from the
 * table each time it is read (JSON.stringify, npm:yaml, structuredClone
 * and the validators all read it as a field): written, compared or applied
 * one object at a time, a zone's record sets hold one set's endpoints at
 * once, never all of them.
 */
export function recordSetSpecs(
  table: RRsetTable,
  zone: string,
): DNSRecordSetSpec[] {
  const specs: DNSRecordSetSpec[] = [];
  for (let from = 0; from < table.size; from += MAX_ENDPOINTS) {
    const spec = { zoneRef: { name: zone } } as DNSRecordSetSpec;
    Object.defineProperty(spec, "endpoints", {
      enumerable: true,
      get: () => table.slice(from, from + MAX_ENDPOINTS),
    });
    specs.push(spec);
  }
  return specs;
}
