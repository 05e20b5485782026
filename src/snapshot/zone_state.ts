/**
 * The DNSZone and DNSRecordSet objects of a Store, mirrored in memory from
 * two watches, with the record sets indexed by the zone their zoneRef names.
 * The snapshot builder and the zone controller each read one.
 */
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { formatKey } from "../api/v1alpha1/meta.ts";
import type { Logger } from "../log/logger.ts";
import type { Store } from "../store/store.ts";
import {
  type Backoff,
  KindMirror,
  type MirrorChange,
  type MirroredObject,
} from "./kind_mirror.ts";

/** A change to either mirror. */
export type ZoneStateChange =
  | { kind: "DNSZone"; change: MirrorChange<DNSZone> }
  | { kind: "DNSRecordSet"; change: MirrorChange<DNSRecordSet> };

export interface ZoneStateOptions {
  store: Store;
  logger: Logger;
  /** Called after every applied change (including re-lists). */
  onChange?: (change: ZoneStateChange) => void;
  backoff?: Backoff;
}

type Bucket = Map<string, MirroredObject<DNSRecordSet>>;

function zoneRefOf(rs: MirroredObject<DNSRecordSet> | undefined) {
  return rs?.object.spec?.zoneRef.name;
}

/** Zones and record sets, current as of the last watch event. */
export class ZoneState {
  /** Resolves once both kinds have been listed. */
  readonly synced: Promise<void>;
  #zones: KindMirror<DNSZone>;
  #recordSets: KindMirror<DNSRecordSet>;
  /** zone object name → record-set key → record set */
  #byZone = new Map<string, Bucket>();

  constructor(opts: ZoneStateOptions) {
    const common = {
      store: opts.store,
      logger: opts.logger,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
    };
    this.#zones = new KindMirror<DNSZone>({
      ...common,
      kind: "DNSZone",
      onChange: (change) => opts.onChange?.({ kind: "DNSZone", change }),
    });
    this.#recordSets = new KindMirror<DNSRecordSet>({
      ...common,
      kind: "DNSRecordSet",
      onChange: (change) => {
        this.#index(change);
        opts.onChange?.({ kind: "DNSRecordSet", change });
      },
    });
    this.synced = Promise.all([this.#zones.synced, this.#recordSets.synced])
      .then(() => {});
  }

  get isSynced(): boolean {
    return this.#zones.isSynced && this.#recordSets.isSynced;
  }

  start(): void {
    this.#zones.start();
    this.#recordSets.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#zones.stop(), this.#recordSets.stop()]);
  }

  /** Every zone, in no particular order. */
  zones(): IterableIterator<MirroredObject<DNSZone>> {
    return this.#zones.values();
  }

  /** The zone with this object name. */
  zone(name: string): MirroredObject<DNSZone> | undefined {
    return this.#zones.get(formatKey({ kind: "DNSZone", namespace: "", name }));
  }

  /** Every record set, in no particular order. */
  recordSets(): IterableIterator<MirroredObject<DNSRecordSet>> {
    return this.#recordSets.values();
  }

  /** The record sets whose zoneRef names this zone, sorted by namespace/name. */
  recordSetsOf(zoneName: string): MirroredObject<DNSRecordSet>[] {
    const bucket = this.#byZone.get(zoneName);
    if (!bucket) return [];
    return [...bucket.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, rs]) => rs);
  }

  #index(change: MirrorChange<DNSRecordSet>): void {
    if (change.type === "Resynced") {
      this.#byZone.clear();
      for (const rs of this.#recordSets.values()) {
        const zone = zoneRefOf(rs);
        if (zone !== undefined) this.#bucket(zone).set(this.#keyOf(rs), rs);
      }
      return;
    }
    const before = zoneRefOf(change.previous);
    const after = zoneRefOf(change.current);
    if (before !== undefined && before !== after) {
      const bucket = this.#byZone.get(before);
      bucket?.delete(change.key);
      if (bucket?.size === 0) this.#byZone.delete(before);
    }
    if (after !== undefined && change.current) {
      this.#bucket(after).set(change.key, change.current);
    }
  }

  #keyOf(rs: MirroredObject<DNSRecordSet>): string {
    const m = rs.object.metadata;
    return formatKey({
      kind: "DNSRecordSet",
      namespace: m.namespace ?? "",
      name: m.name,
    });
  }

  #bucket(zone: string): Bucket {
    let bucket = this.#byZone.get(zone);
    if (!bucket) this.#byZone.set(zone, bucket = new Map());
    return bucket;
  }
}
