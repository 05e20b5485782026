/**
 * The leader's zone loop: level-triggered passes over every zone and record
 * set, each writing only the statuses that differ from what is stored. Its
 * own writes come back as Modified events; they start another pass, which
 * finds nothing to write (the content hash is unchanged), so the loop settles.
 */
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { formatKey, keyOf, type KObject } from "../api/v1alpha1/meta.ts";
import type { Logger } from "../log/logger.ts";
import { jsonEqual } from "../store/apply_rules.ts";
import { removeConditions, setCondition } from "./conditions.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import type { Backoff, MirroredObject } from "../snapshot/kind_mirror.ts";
import {
  ZoneBuildCache,
  type ZoneProblem,
  type ZoneWarning,
} from "../snapshot/zone_build_cache.ts";
import { ZoneState, type ZoneStateChange } from "../snapshot/zone_state.ts";
import type { RebuildHold } from "../snapshot/rebuild_hold.ts";
import {
  forwardZoneStatus,
  primaryZoneStatus,
  recordSetStatus,
  type RecordSetZone,
  type ServedZone,
  shadowedZoneStatus,
} from "./zone_status.ts";
import { isSelected, withSerial } from "../zone/content.ts";
import type { ZoneContent } from "../zone/types.ts";
import { primaryZoneOwners } from "../zone/zone_owner.ts";
import { normalizeName } from "../dns/name.ts";

export interface ZoneReconcilerOptions {
  store: Store;
  logger: Logger;
  now: () => Date;
  /** Changes within this window become one pass. */
  debounceMs: number;
  /** Wait after a failed write before the next pass. @default 1000 */
  retryMs?: number;
  /** The names in `upstreams.groups`, checked against forward zones. */
  upstreamGroups?: readonly string[];
  backoff?: Backoff;
  /** While held, passes wait for the release (at most its `maxWaitMs`). */
  hold?: RebuildHold;
  /**
   * Told, once the status write that stamped it is stored, that a primary
   * zone is served with a new serial: its content before (with the old
   * serial; undefined when this leader never saw it, e.g. the zone changed
   * while no one led) and after. The journal and NOTIFY follow from it.
   * Must not throw (a throw is logged).
   */
  onNewSerial?: (
    zone: string,
    before: ZoneContent | undefined,
    after: ZoneContent,
  ) => void;
  /**
   * Why the last NOTIFY of a primary zone failed for some secondaries
   * (a `NotifyFailed` condition while it is so); undefined when none did.
   */
  notifyFailure?: (zone: string) => string | undefined;
}

/** A running reconciler. */
export interface ZoneReconciler {
  /** Passes again soon (something the statuses read besides objects changed). */
  refresh(): void;
  stop(): Promise<void>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const NOTIFY_CONDITION: ReadonlySet<string> = new Set(["NotifyFailed"]);
/** How long a pass writes statuses before it lets other work run. */
const YIELD_AFTER_MS = 50;

/** A status write this pass wants to make. */
interface StatusWrite {
  /** A primary zone's content with the serial this write stamps. */
  stamps?: { zone: string; content: ZoneContent };
  key: string;
  object: KObject;
}

function resourceVersionAtLeast(seen: string, written: string): boolean {
  const a = Number(seen);
  const b = Number(written);
  // Our drivers count; an opaque version can only be matched exactly.
  return Number.isSafeInteger(a) && Number.isSafeInteger(b)
    ? a >= b
    : seen === written;
}

/** Starts reconciling; call stop() when leadership ends. */
export function startZoneReconciler(
  opts: ZoneReconcilerOptions,
): ZoneReconciler {
  const log = opts.logger;
  const cache = new ZoneBuildCache();
  /**
   * Objects as our last write returned them, until the watch catches up: a
   * pass that ran on the stale status would stamp the serial a second time.
   */
  const written = new Map<string, KObject>();
  /** Last failure logged per object, so a repeating failure is logged once. */
  const failures = new Map<string, string>();
  let stopped = false;
  let dirty = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * What each primary zone name was last served with, whichever object
   * served it (kept after the zone goes): its serial never goes back.
   */
  const served = new Map<string, ServedZone>();
  /**
   * Each primary zone's content with its stored serial, as this leader
   * last saw it: the `before` of the next onNewSerial.
   */
  const stamped = new Map<string, ZoneContent>();
  /** Which object serves each primary zone name (zone_owner.ts), per pass. */
  let owners = new Map<string, string>();
  let running: Promise<void> | undefined;
  /** Cancels the pass that waits for the hold's release. */
  let awaitingRelease: (() => void) | undefined;

  const state = new ZoneState({
    store: opts.store,
    logger: log,
    onChange: (change) => {
      forgetCaughtUp(change);
      schedule(opts.debounceMs);
    },
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
  });

  function forgetCaughtUp(event: ZoneStateChange): void {
    const change = event.change;
    if (change.type === "Resynced") return written.clear();
    const mine = written.get(change.key);
    if (!mine) return;
    const seen = change.current?.object.metadata.resourceVersion;
    if (
      change.current === undefined ||
      (seen !== undefined &&
        resourceVersionAtLeast(seen, mine.metadata.resourceVersion ?? ""))
    ) written.delete(change.key);
  }

  function schedule(delay: number): void {
    if (stopped || !state.isSynced) return;
    dirty = true;
    if (timer !== undefined || running !== undefined || awaitingRelease) {
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      passUnlessHeld();
    }, Math.min(MAX_TIMER_MS, Math.max(0, delay)));
  }

  /**
   * A pass builds every changed zone: while the objects loader writes a
   * file's record sets one by one, it waits, so the zone is built once.
   */
  function passUnlessHeld(): void {
    const hold = opts.hold;
    if (!hold?.held) return startPass();
    awaitingRelease = hold.whenReleased(() => {
      awaitingRelease = undefined;
      startPass();
    });
  }

  function startPass(): void {
    if (stopped) return;
    running = pass().finally(() => {
      running = undefined;
      if (dirty) schedule(opts.debounceMs);
    });
  }

  /** The object with the status we last wrote, if the watch has not shown it yet. */
  function latest<T extends KObject>(key: string, m: MirroredObject<T>): T {
    const mine = written.get(key);
    return mine ? { ...m.object, status: mine.status } : m.object;
  }

  function plan(now: Date): StatusWrite[] {
    const writes: StatusWrite[] = [];
    const problems = new Map<string, ZoneProblem[]>();
    const warnings = new Map<string, ZoneWarning[]>();
    const live = new Set<string>();
    /** Names of the primary zones served. */
    const servedNames = new Set<string>();
    const consider = (key: string, obj: KObject, status: unknown) => {
      if (jsonEqual(obj.status, status)) return undefined;
      const write: StatusWrite = { key, object: { ...obj, status } };
      writes.push(write);
      return write;
    };
    owners = primaryZoneOwners([...state.zones()].map((m) => m.object));
    for (const m of state.zones()) {
      const key = formatKey(keyOf(m.object));
      const zone = latest<DNSZone>(key, m);
      const name = zone.metadata.name;
      live.add(name);
      const owner = ownerOf(zone);
      if (zone.spec?.type === "forward") {
        consider(key, zone, forwardZoneStatus(zone, now, opts.upstreamGroups));
      } else if (owner !== undefined && owner !== name) {
        consider(key, zone, shadowedZoneStatus(zone, owner, now));
      } else if (zone.spec?.type === "primary") {
        const outcome = cache.build(m, state.recordSetsOf(name), now);
        const zoneName = normalizeName(zone.spec.zoneName);
        const status = primaryZoneStatus(
          zone,
          outcome,
          now,
          served.get(zoneName),
        );
        if (status.serial !== undefined && status.contentHash !== undefined) {
          served.set(zoneName, {
            serial: status.serial,
            contentHash: status.contentHash,
          });
        }
        const notifyFailure = opts.notifyFailure?.(zoneName);
        status.conditions = notifyFailure === undefined
          ? removeConditions(status.conditions, NOTIFY_CONDITION)
          : setCondition(status.conditions, {
            type: "NotifyFailed",
            status: "True",
            reason: "NotifyFailed",
            message: notifyFailure.slice(0, 1024),
          }, now);
        const write = consider(key, zone, status);
        servedNames.add(zoneName);
        if (outcome.ok && status.serial !== undefined) {
          const last = stamped.get(zoneName);
          if (status.serial === zone.status?.serial) {
            if (last?.serial !== status.serial) {
              stamped.set(
                zoneName,
                withSerial(outcome.build.content, status.serial),
              );
            }
          } else if (write !== undefined) {
            write.stamps = {
              zone: zoneName,
              content: withSerial(outcome.build.content, status.serial),
            };
          }
        }
        if (outcome.ok) {
          for (const p of outcome.build.problems) {
            const rsKey = `${p.recordSet.namespace}/${p.recordSet.name}`;
            problems.set(rsKey, [...(problems.get(rsKey) ?? []), p]);
          }
          for (const w of outcome.build.warnings) {
            const rsKey = `${w.recordSet.namespace}/${w.recordSet.name}`;
            warnings.set(rsKey, [...(warnings.get(rsKey) ?? []), w]);
          }
        }
      }
    }
    cache.retain(live);
    for (const name of stamped.keys()) {
      if (!servedNames.has(name)) stamped.delete(name);
    }
    for (const m of state.recordSets()) {
      const key = formatKey(keyOf(m.object));
      const rs = latest<DNSRecordSet>(key, m);
      const where = whereIs(rs, problems, warnings);
      consider(key, rs, recordSetStatus(rs, where, now));
    }
    return writes;
  }

  /** Which object serves `zone`'s name, when it is a primary zone. */
  function ownerOf(zone: DNSZone): string | undefined {
    const name = zone.spec?.zoneName;
    return name ? owners.get(normalizeName(name)) : undefined;
  }

  function whereIs(
    rs: DNSRecordSet,
    problems: Map<string, ZoneProblem[]>,
    warnings: Map<string, ZoneWarning[]>,
  ): RecordSetZone {
    const zoneRef = rs.spec?.zoneRef.name ?? "";
    const zone = state.zone(zoneRef)?.object;
    if (!zone) return { kind: "missing", zoneRef };
    if (zone.spec?.type !== "primary") {
      return { kind: "notPrimary", zoneRef, type: zone.spec?.type ?? "" };
    }
    const owner = ownerOf(zone);
    if (owner !== undefined && owner !== zoneRef) {
      return {
        kind: "refused",
        reason: "ZoneConflict",
        message:
          `DNSZone "${zoneRef}" is not served: ${zone.spec.zoneName} is served by the older DNSZone "${owner}"`,
      };
    }
    if (!isSelected(zone, rs)) {
      return {
        kind: "refused",
        reason: "NotSelected",
        message:
          `DNSZone "${zoneRef}" takes record sets only as its spec.recordSetSelector says (namespaces, labels)`,
      };
    }
    if (cache.last(zoneRef)?.ok === false) return { kind: "failed", zoneRef };
    const rsKey = `${rs.metadata.namespace ?? ""}/${rs.metadata.name}`;
    return {
      kind: "primary",
      zoneName: zone.spec.zoneName,
      problems: problems.get(rsKey) ?? [],
      warnings: warnings.get(rsKey) ?? [],
    };
  }

  async function pass(): Promise<void> {
    dirty = false;
    const now = opts.now();
    let failed = false;
    let busySince = performance.now();
    for (const w of plan(now)) {
      // A store that answers at once (sqlite) never lets the event loop run
      // between writes: the statuses of 1,500 new record sets held the
      // health probes up for over a second.
      if (performance.now() - busySince > YIELD_AFTER_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        busySince = performance.now();
      }
      if (stopped) return;
      try {
        const stored = await opts.store.updateStatus(w.object);
        written.set(w.key, stored);
        failures.delete(w.key);
        if (w.stamps !== undefined) newSerial(w.stamps.zone, w.stamps.content);
      } catch (err) {
        if (err instanceof NotFoundError) continue; // deleted meanwhile
        failed = true;
        const message = err instanceof Error ? err.message : String(err);
        if (failures.get(w.key) !== message) {
          failures.set(w.key, message);
          log.warn(`Cannot write the status of ${w.key}`, { error: err });
        }
      }
    }
    if (failed) {
      dirty = false;
      retryLater(opts.retryMs ?? 1000);
    }
    armExpiry(now);
  }

  function newSerial(zone: string, content: ZoneContent): void {
    const before = stamped.get(zone);
    stamped.set(zone, content);
    try {
      opts.onNewSerial?.(zone, before, content);
    } catch (error) {
      log.error("Handling a new serial failed", { zone, error });
    }
  }

  let retry: ReturnType<typeof setTimeout> | undefined;
  function retryLater(ms: number): void {
    if (retry !== undefined || stopped) return;
    retry = setTimeout(() => {
      retry = undefined;
      schedule(0);
    }, ms);
  }

  /** Passes again when an `expiresAt` endpoint lapses, so the hash and serial follow. */
  let expiry: ReturnType<typeof setTimeout> | undefined;
  function armExpiry(now: Date): void {
    if (expiry !== undefined) clearTimeout(expiry);
    expiry = undefined;
    const at = cache.nextExpiry();
    if (at === undefined || stopped) return;
    expiry = setTimeout(() => {
      expiry = undefined;
      schedule(0);
    }, Math.min(MAX_TIMER_MS, Math.max(0, at - now.getTime())));
  }

  state.start();
  return {
    refresh: () => schedule(opts.debounceMs),
    async stop() {
      stopped = true;
      for (const t of [timer, retry, expiry]) {
        if (t !== undefined) clearTimeout(t);
      }
      timer = retry = expiry = undefined;
      awaitingRelease?.();
      awaitingRelease = undefined;
      await running;
      await state.stop();
    },
  };
}
