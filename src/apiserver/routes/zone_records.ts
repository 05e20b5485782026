/**
 * A zone's records one at a time, over the DNSRecordSets that hold them:
 * the flat list (one row per record set, endpoint and target), and edits
 * made the way the API makes them. Records the API adds go into the record
 * sets the API manages for the zone (`default/<zone>-api`, then
 * `<zone>-api-2`… when one is full at MAX_ENDPOINTS), into the endpoint
 * that already holds their name and type when there is one (RFC 2181 §5.2:
 * one TTL per RRset, so a TTL given sets the whole RRset's). A name and type
 * that a record set of another manager (a file, an integration) declares is
 * that manager's: the API neither adds to it (the zone would serve only the
 * first declaration, content.ts `Duplicated`) nor removes from it.
 *
 * Pure over the objects: the routes (zone_record_routes.ts, zone_file_routes.ts) read them from the
 * Store and write back what {@linkcode ZoneRecordEditor.changes} lists;
 * zone_record_rows.ts lists them.
 */
import { rdataKey } from "../../zone/content.ts";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import {
  type DNSRecordSet,
  type Endpoint,
  MAX_ENDPOINTS,
} from "../../api/v1alpha1/dnsrecordset.ts";
import { canonicalName, normalizeName, splitLabels } from "../../dns/name.ts";
import { parseRdata, typeCode } from "../../dns/rdata_text.ts";

/** The manager API writes are made under (objects.ts `API_MANAGER`). */
const API = "api";

/** Most targets one endpoint holds (dnsrecordset.ts `targets.max`). */
const MAX_TARGETS = 1000;

/** A DNSRecordSet by namespace and name. */
export interface RecordSetRef {
  namespace: string;
  name: string;
}

/** One record of a zone, as the flat list shows it. */
export interface RecordRow {
  recordSet: RecordSetRef;
  /** metadata.managedBy of the record set: "api", "file:…", "integration:…". */
  managedBy: string;
  /** The owner, lowercase and fully qualified. */
  name: string;
  /** The record type as the endpoint writes it (`A`, `TYPE65400`). */
  type: string;
  /** recordTTL, else the zone's defaultTTL. */
  ttl: number;
  /** The target as written in the endpoint. */
  data: string;
  /** The endpoint is disabled (kudurru.disabled) and not served. */
  disabled?: true;
}

/** A record set the edit writes, and how. */
export interface RecordSetChange {
  action: "create" | "update" | "delete";
  /** The object to apply (for delete: as last read). */
  object: DNSRecordSet;
  /** The resourceVersion it was read at; undefined for a create. */
  readAt: string | undefined;
}

/** What {@linkcode ZoneRecordEditor.add} did. */
export interface AddResult {
  /** Targets added. */
  added: number;
  /** Targets that were there already. */
  present: number;
  /** Each target as the RRset now holds it (an equal one's text when present). */
  stored: string[];
  /** The RRset's recordTTL in the API's endpoint after the add. */
  recordTTL: number | undefined;
  /** Where the RRset's endpoint is (the first, when several). */
  recordSet: RecordSetRef;
  endpoint: number;
}

/** A record of another manager: the API may not change it. */
export interface ForeignRecord {
  recordSet: RecordSetRef;
  managedBy: string;
}

/** The owner as the zone serves it: lowercase, escapes spelled one way. */
export function ownerOf(name: string): string {
  return normalizeName(canonicalName(name));
}

/**
 * What tells two records of one RRset apart, as the zone merges them:
 * the parsed data written one way; text that does not parse compares as
 * written.
 */
export function recordKey(type: string, data: string): string {
  try {
    return rdataKey(parseRdata(type, data));
  } catch {
    return `raw:${data.trim()}`;
  }
}

export function refOf(set: DNSRecordSet): RecordSetRef {
  return { namespace: set.metadata.namespace ?? "", name: set.metadata.name };
}

/** "namespace/name". */
export function keyOf(ref: RecordSetRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/** Declaration order (content.ts): oldest first, then namespace/name. */
function declarationOrder(a: DNSRecordSet, b: DNSRecordSet): number {
  const ta = createdAt(a);
  const tb = createdAt(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = keyOf(refOf(a));
  const kb = keyOf(refOf(b));
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function createdAt(set: DNSRecordSet): number {
  const time = Date.parse(set.metadata.creationTimestamp ?? "");
  return Number.isNaN(time) ? -Infinity : time;
}

/** The record sets whose zoneRef is `zone`. */
export function recordSetsOf(
  zone: DNSZone,
  sets: readonly DNSRecordSet[],
): DNSRecordSet[] {
  return sets.filter((s) => s.spec?.zoneRef.name === zone.metadata.name);
}

interface Working {
  set: DNSRecordSet;
  readAt: string | undefined;
  touched: boolean;
}

/** One endpoint that declares an RRset, and where. */
interface Holder {
  w: Working;
  endpoint: Endpoint;
  /** Its index in spec.endpoints. */
  index: number;
}

/**
 * Edits of one zone's records over a working copy of its record sets.
 * `allSets` are every DNSRecordSet (names of new record sets must not clash
 * with any, whatever zone they serve).
 */
export class ZoneRecordEditor {
  private readonly sets = new Map<string, Working>();
  private readonly zoneName: string;
  /** Endpoints of the zone's record sets by `owner code`, in declaration order. */
  private readonly holders = new Map<string, Holder[]>();
  /** Endpoints of the zone's record sets by owner. */
  private readonly byOwner = new Map<string, Endpoint[]>();
  /** The API record set new endpoints go to, once chosen. */
  private home: Working | undefined;

  constructor(
    private readonly zone: DNSZone,
    allSets: readonly DNSRecordSet[],
  ) {
    this.zoneName = zone.metadata.name;
    for (const set of allSets) {
      const copy = structuredClone(set);
      delete copy.status;
      this.sets.set(keyOf(refOf(set)), {
        set: copy,
        readAt: set.metadata.resourceVersion,
        touched: false,
      });
    }
    const ordered = [...this.sets.values()]
      .filter((w) => w.set.spec?.zoneRef.name === this.zoneName)
      .sort((a, b) => declarationOrder(a.set, b.set));
    for (const w of ordered) {
      w.set.spec!.endpoints.forEach((endpoint, index) =>
        this.index(w, endpoint, index)
      );
    }
  }

  private index(w: Working, endpoint: Endpoint, index: number): void {
    const owner = ownerOf(endpoint.dnsName);
    const atOwner = this.byOwner.get(owner);
    if (atOwner === undefined) this.byOwner.set(owner, [endpoint]);
    else atOwner.push(endpoint);
    const code = typeCode(endpoint.recordType);
    if (code === undefined) return;
    const key = `${owner} ${code}`;
    const list = this.holders.get(key);
    if (list === undefined) this.holders.set(key, [{ w, endpoint, index }]);
    else list.push({ w, endpoint, index });
  }

  private holdersOf(owner: string, code: number): Holder[] {
    return this.holders.get(`${owner} ${code}`) ?? [];
  }

  /** The first record set of another manager that declares `owner` `code`. */
  foreignHolder(owner: string, code: number): ForeignRecord | undefined {
    const holder = this.holdersOf(owner, code).find((h) =>
      h.w.set.metadata.managedBy !== API && h.endpoint.targets.length > 0
    );
    return holder === undefined ? undefined : {
      recordSet: refOf(holder.w.set),
      managedBy: holder.w.set.metadata.managedBy ?? "",
    };
  }

  /**
   * Adds `targets` (already checked to be in the zone) to the RRset
   * `owner` `type`. `ttl`, when given, becomes the TTL of every API
   * endpoint of the RRset. The caller checks {@linkcode foreignHolder} first.
   */
  add(
    owner: string,
    type: string,
    targets: readonly string[],
    ttl?: number,
  ): AddResult {
    const code = typeCode(type)!;
    const mine = this.holdersOf(owner, code).filter((h) =>
      h.w.set.metadata.managedBy === API
    );
    // Disabled or expiring endpoints keep their records to themselves.
    const live = mine.filter(({ endpoint }) =>
      endpoint.kudurru?.disabled !== true &&
      endpoint.kudurru?.expiresAt === undefined
    );
    const seen = new Map<string, string>();
    for (const { endpoint } of live) {
      for (const t of endpoint.targets) seen.set(recordKey(type, t), t);
    }
    const fresh: string[] = [];
    const stored: string[] = [];
    let present = 0;
    for (const target of targets) {
      const key = recordKey(type, target);
      const held = seen.get(key);
      stored.push(held ?? target);
      if (held !== undefined) {
        present++;
        continue;
      }
      seen.set(key, target);
      fresh.push(target);
    }
    if (ttl !== undefined) {
      for (const { w, endpoint } of mine) {
        if (endpoint.recordTTL === ttl) continue;
        endpoint.recordTTL = ttl;
        w.touched = true;
      }
    }
    const first = live[0];
    if (first !== undefined) {
      this.fill(first.w, first.endpoint, fresh);
      return {
        added: fresh.length,
        present,
        stored,
        recordTTL: first.endpoint.recordTTL,
        recordSet: refOf(first.w.set),
        endpoint: first.index,
      };
    }
    const w = mine[0]?.w ?? this.homeSet();
    const endpoint: Endpoint = {
      dnsName: owner,
      recordType: type,
      targets: [],
      ...(ttl !== undefined && { recordTTL: ttl }),
    };
    const index = w.set.spec!.endpoints.push(endpoint) - 1;
    this.index(w, endpoint, index);
    w.touched = true;
    this.fill(w, endpoint, fresh);
    return {
      added: fresh.length,
      present,
      stored,
      recordTTL: ttl,
      recordSet: refOf(w.set),
      endpoint: index,
    };
  }

  /** Puts targets into `endpoint`, then into copies of it when it is full. */
  private fill(w: Working, endpoint: Endpoint, targets: string[]): void {
    let current = endpoint;
    for (const target of targets) {
      if (current.targets.length >= MAX_TARGETS) {
        const { targets: _full, ...rest } = current;
        current = { ...structuredClone(rest), targets: [] };
        this.index(w, current, w.set.spec!.endpoints.push(current) - 1);
      }
      current.targets.push(target);
      w.touched = true;
    }
  }

  /**
   * Removes the record `owner` `code` whose data has `key` (see
   * {@linkcode recordKey}) from the API's record sets. Returns the rows
   * removed and the first record set of another manager that holds it too.
   */
  remove(
    owner: string,
    code: number,
    key: string,
  ): { removed: RecordRow[]; foreign: ForeignRecord | undefined } {
    const removed: RecordRow[] = [];
    let foreign: ForeignRecord | undefined;
    const defaultTTL = this.zone.spec?.defaultTTL ?? 300;
    for (const { w, endpoint } of this.holdersOf(owner, code)) {
      const keep = endpoint.targets.filter((t) =>
        recordKey(endpoint.recordType, t) !== key
      );
      if (keep.length === endpoint.targets.length) continue;
      if (w.set.metadata.managedBy !== API) {
        foreign ??= {
          recordSet: refOf(w.set),
          managedBy: w.set.metadata.managedBy ?? "",
        };
        continue;
      }
      for (const data of endpoint.targets) {
        if (keep.includes(data)) continue;
        removed.push({
          recordSet: refOf(w.set),
          managedBy: API,
          name: owner,
          type: endpoint.recordType,
          ttl: endpoint.recordTTL ?? defaultTTL,
          data,
        });
      }
      // Emptied endpoints stay until output(), so indexes keep their meaning.
      endpoint.targets = keep;
      w.touched = true;
    }
    return { removed, foreign };
  }

  /**
   * The API record set that takes new endpoints: `<zone>-api`, then
   * `<zone>-api-2`…, the first that is the API's for this zone and not
   * full, or the first name that is free (created here). The namespace
   * and labels are ones the zone's recordSetSelector admits.
   */
  private homeSet(): Working {
    const home = this.home;
    if (home !== undefined && home.set.spec!.endpoints.length < MAX_ENDPOINTS) {
      return home;
    }
    this.home = this.findHome();
    return this.home;
  }

  private findHome(): Working {
    const { namespace, labels } = this.placement();
    const base = `${this.zoneName.slice(0, 240)}-api`;
    for (let n = 1;; n++) {
      const name = n === 1 ? base : `${base}-${n}`;
      const w = this.sets.get(`${namespace}/${name}`);
      if (w === undefined) {
        const set: DNSRecordSet = {
          apiVersion: "kudurru.io/v1alpha1",
          kind: "DNSRecordSet",
          metadata: {
            namespace,
            name,
            managedBy: API,
            ...(Object.keys(labels).length > 0 && { labels }),
          },
          spec: { zoneRef: { name: this.zoneName }, endpoints: [] },
        };
        const fresh: Working = { set, readAt: undefined, touched: true };
        this.sets.set(`${namespace}/${name}`, fresh);
        return fresh;
      }
      if (
        w.set.metadata.managedBy === API &&
        w.set.spec?.zoneRef.name === this.zoneName &&
        w.set.spec.endpoints.length < MAX_ENDPOINTS
      ) return w;
    }
  }

  private placement(): { namespace: string; labels: Record<string, string> } {
    const selector = this.zone.spec?.recordSetSelector;
    const namespaces = selector?.namespaces ?? [];
    return {
      namespace: namespaces.length === 0 || namespaces.includes("default")
        ? "default"
        : namespaces[0]!,
      labels: { ...selector?.labelSelector?.matchLabels },
    };
  }

  /** Every record set the edits changed, and how to write it. */
  changes(): RecordSetChange[] {
    const out: RecordSetChange[] = [];
    for (const w of this.sets.values()) {
      if (!w.touched) continue;
      const object = output(w.set);
      const empty = object.spec!.endpoints.length === 0;
      if (w.readAt === undefined) {
        if (!empty) out.push({ action: "create", object, readAt: undefined });
      } else {
        out.push({
          action: empty ? "delete" : "update",
          object,
          readAt: w.readAt,
        });
      }
    }
    return out;
  }

  /**
   * The record sets as {@linkcode current} gives them, with every endpoint
   * that is not at `owner` or above it disabled: a zone build of these
   * reports what it reports for `owner`'s endpoints (duplicates, CNAME
   * conflicts, occlusion by a DNAME or cut above) without assembling the
   * whole zone. Endpoint indexes are kept (after adds; not after a remove).
   */
  around(owner: string): DNSRecordSet[] {
    const relevant = new Set<Endpoint>();
    const labels = splitLabels(owner);
    for (let i = 0; i <= labels.length; i++) {
      const name = i === labels.length ? "." : labels.slice(i).join(".") + ".";
      for (const e of this.byOwner.get(name) ?? []) relevant.add(e);
    }
    return this.current().map((set) => ({
      ...set,
      spec: {
        ...set.spec!,
        endpoints: set.spec!.endpoints.map((e) =>
          relevant.has(e) ? e : { ...e, kudurru: { disabled: true } }
        ),
      },
    }));
  }

  /** The record sets as they stand after the edits (for a zone build). */
  current(): DNSRecordSet[] {
    return [...this.sets.values()]
      .map((w) => output(w.set))
      .filter((set) => set.spec!.endpoints.length > 0);
  }
}

/** A record set as written: without the endpoints the edits emptied. */
function output(set: DNSRecordSet): DNSRecordSet {
  const endpoints = set.spec!.endpoints;
  if (endpoints.every((e) => e.targets.length > 0)) return set;
  return {
    ...set,
    spec: {
      ...set.spec!,
      endpoints: endpoints.filter((e) => e.targets.length > 0),
    },
  };
}
