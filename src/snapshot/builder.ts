/**
 * The snapshot builder: the main thread's view of the zones, turned into the
 * Snapshot that data-plane workers answer from
 * (docs/design.md#serve-from-memory). It reads the Store through two watches
 * and never writes to it.
 */
import { normalizeName } from "../dns/name.ts";
import type { DataPlaneSettings } from "../pipeline/settings.ts";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import type { Logger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import type { BlockingSnapshot } from "../blocking/blocking_snapshot.ts";
import type { Store } from "../store/store.ts";
import { forwardZoneOf, withSerial } from "../zone/content.ts";
import type { ForwardZone, ZoneContent } from "../zone/types.ts";
import type { Backoff, MirroredObject } from "./kind_mirror.ts";
import { ZoneBuildCache, type ZoneBuildOutcome } from "./zone_build_cache.ts";
import { ZoneState } from "./zone_state.ts";
import { compareZoneObjects } from "../zone/zone_owner.ts";
import type { RebuildHold } from "./rebuild_hold.ts";

export interface SnapshotBuilderOptions {
  store: Store;
  /** This node's name, copied into every snapshot. */
  nodeName: string;
  /** The kudurru version, copied into every snapshot. */
  version: string;
  logger: Logger;
  /** Changes within this window become one snapshot. @default 100 */
  debounceMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  /** Receives every new snapshot; a throw is logged and does not stop the builder. */
  onSnapshot: (snapshot: Snapshot) => void;
  /** Retry timing when a watch fails. */
  backoff?: Backoff;
  /** Upstreams, cache and rate-limit settings, copied into every snapshot. */
  settings?: DataPlaneSettings;
  /** TSIG keys, copied into every snapshot (src/transfer/tsig_key_files.ts). */
  tsigKeys?: Snapshot["tsigKeys"];
  /** Where the zone journal is, copied into every snapshot. */
  journalPath?: string;
  /**
   * The content of secondary zones (src/transfer/secondary_zones.ts), by
   * zone name; call `refresh()` when it changes. Absent: none is served.
   */
  secondaries?: { contentOf(zoneName: string): ZoneContent | undefined };
  /**
   * The blocking part, read at every build (a BlockingAssembler); call
   * `refresh()` when it changes. Absent: snapshots carry no blocking data.
   */
  blocking?: { current(): BlockingSnapshot | undefined };
  /**
   * While held (the objects loader writing a file's objects), rebuilds wait
   * for the release (at most its `maxWaitMs`): one build of the whole change.
   */
  hold?: RebuildHold;
}

export interface SnapshotBuilder {
  /** Ends the watches and timers; no snapshot is published afterwards. */
  stop(): Promise<void>;
  /** The last published snapshot, or undefined before the first. */
  current(): Snapshot | undefined;
  /** Resolves when the first snapshot has been published (never, if stopped before). */
  synced: Promise<void>;
  /** Builds again (debounced): something read through an option changed. */
  refresh(): void;
  /** Replaces the settings copied into snapshots, and builds again. */
  setSettings(settings: DataPlaneSettings): void;
  /** Replaces the TSIG keys copied into snapshots, and builds again. */
  setTsigKeys(keys: NonNullable<Snapshot["tsigKeys"]>): void;
}

/** Longest delay setTimeout accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The longest a change waits for its snapshot, however slow rebuilds are. */
const MAX_DEBOUNCE_MS = 5_000;

/**
 * How long changes gather before a rebuild: `debounceMs`, or twice the last
 * rebuild when that is longer, so rebuilds of large zones (objects.d loading
 * 100 record sets of a 100,000-record zone one by one) take at most a third
 * of the main thread instead of running back to back; never over 5 s.
 */
export function debounceWindow(debounceMs: number, lastRebuildMs: number) {
  return Math.min(MAX_DEBOUNCE_MS, Math.max(debounceMs, 2 * lastRebuildMs));
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Starts watching and publishing: the first snapshot right after both watches
 * have listed everything, then one per debounce window with changes.
 */
export function startSnapshotBuilder(
  opts: SnapshotBuilderOptions,
): SnapshotBuilder {
  const log = opts.logger.with({ component: "snapshot-builder" });
  const now = opts.now ?? (() => new Date());
  const debounceMs = opts.debounceMs ?? 100;
  let settings = opts.settings;
  /** Undefined when there is none, as snapshots carry them. */
  let tsigKeys = opts.tsigKeys?.length ? opts.tsigKeys : undefined;
  const cache = new ZoneBuildCache();
  /** Each zone's build with the serial it was last served with (same object while both stay). */
  const stamped = new Map<
    string,
    { built: ZoneContent; served: ZoneContent }
  >();
  /** How long the last rebuild took: the next waits at least twice that. */
  let lastRebuildMs = 0;
  /** The content last built successfully, served while a zone fails to build. */
  const lastGood = new Map<string, ZoneContent>();
  /** The failure last logged per zone, so each failure is logged once. */
  const loggedFailure = new Map<string, ZoneBuildOutcome>();
  let current: Snapshot | undefined;
  let version = 0;
  let stopped = false;
  let debounce: ReturnType<typeof setTimeout> | undefined;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  /** Cancels the rebuild that waits for the hold's release. */
  let awaitingRelease: (() => void) | undefined;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  const state = new ZoneState({
    store: opts.store,
    logger: log,
    onChange: () => schedule(),
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
  });

  function schedule(): void {
    if (stopped || !state.isSynced) return;
    if (current === undefined) return rebuild(); // the first one waits for nothing
    if (awaitingRelease) return; // that rebuild will include this change
    // A fixed window from the first change: a steady stream of changes still
    // publishes every window instead of starving.
    debounce ??= setTimeout(() => {
      debounce = undefined;
      rebuildUnlessHeld();
    }, debounceWindow(debounceMs, lastRebuildMs));
  }

  function rebuildUnlessHeld(): void {
    const hold = opts.hold;
    if (!hold?.held) return rebuild();
    awaitingRelease = hold.whenReleased(() => {
      // A window after the release: the zone controller, released too,
      // stamps the new serial first, so a changed zone is built and posted
      // to the workers once, not once without and once with its serial.
      // Not held up again: loads back to back must not starve the snapshot.
      debounce = setTimeout(() => {
        debounce = awaitingRelease = undefined;
        rebuild();
      }, debounceMs);
    });
  }

  function primaryContent(
    mirrored: MirroredObject<DNSZone>,
  ): ZoneContent | undefined {
    const zone = mirrored.object;
    const name = zone.metadata.name;
    // Built whatever the serial (status writes do not change the content
    // version), then served with the serial stamped now, or 1 until the
    // controller stamps one.
    const outcome = cache.build(mirrored, state.recordSetsOf(name), now());
    if (outcome.ok) {
      const content = servedWithSerial(
        name,
        outcome.build.content,
        zone.status?.serial ?? 1,
      );
      loggedFailure.delete(name);
      lastGood.set(name, content);
      return content;
    }
    if (loggedFailure.get(name) !== outcome) {
      loggedFailure.set(name, outcome);
      log.warn(
        `Cannot build zone "${zone.spec?.zoneName}"; serving its last content`,
        {
          zone: name,
          error: outcome.error,
        },
      );
    }
    return lastGood.get(name);
  }

  /** `built` with `serial`, the same object as last time when neither changed. */
  function servedWithSerial(
    name: string,
    built: ZoneContent,
    serial: number,
  ): ZoneContent {
    const last = stamped.get(name);
    if (last?.built === built && last.served.serial === serial) {
      return last.served;
    }
    const served = withSerial(built, serial);
    stamped.set(name, { built, served });
    return served;
  }

  function rebuild(): void {
    if (stopped) return;
    const started = performance.now();
    try {
      rebuildZones();
    } finally {
      lastRebuildMs = performance.now() - started;
    }
  }

  function rebuildZones(): void {
    const zones: ZoneContent[] = [];
    const forwardZones: ForwardZone[] = [];
    const live = new Set<string>();
    // Oldest first: among objects claiming one zone name the index keeps
    // the first, and zones.sort below is stable (zone_owner.ts).
    const ordered = [...state.zones()].sort((a, b) =>
      compareZoneObjects(a.object, b.object)
    );
    for (const mirrored of ordered) {
      const zone = mirrored.object;
      const name = zone.metadata.name;
      live.add(name);
      if (zone.spec?.type === "forward") {
        const fz = forwardZoneOf(zone);
        if (fz) forwardZones.push(fz);
      } else if (zone.spec?.type === "primary") {
        const content = primaryContent(mirrored);
        if (content) zones.push(content);
      } else if (zone.spec?.type === "secondary") {
        const content = opts.secondaries?.contentOf(
          normalizeName(zone.spec.zoneName),
        );
        if (content) zones.push(content);
      }
    }
    cache.retain(live);
    for (const map of [lastGood, stamped, loggedFailure]) {
      for (const name of map.keys()) {
        if (!live.has(name)) map.delete(name);
      }
    }
    zones.sort(byName);
    forwardZones.sort(byName);
    armExpiry();
    const blocking = opts.blocking?.current();
    if (
      current && current.blocking === blocking &&
      current.settings === settings &&
      current.tsigKeys === tsigKeys &&
      sameAs(current, zones, forwardZones)
    ) return;
    publish(zones, forwardZones, blocking);
  }

  /** Rebuilds when the next `expiresAt` endpoint lapses. */
  function armExpiry(): void {
    if (expiry !== undefined) clearTimeout(expiry);
    expiry = undefined;
    const at = cache.nextExpiry();
    if (at === undefined) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - now().getTime()));
    expiry = setTimeout(() => {
      expiry = undefined;
      schedule();
    }, delay);
  }

  function publish(
    zones: ZoneContent[],
    forwardZones: ForwardZone[],
    blocking: BlockingSnapshot | undefined,
  ): void {
    const snapshot: Snapshot = {
      version: ++version,
      builtAt: now().toISOString(),
      node: { name: opts.nodeName, version: opts.version },
      zones,
      forwardZones,
      ...(settings ? { settings } : {}),
      ...(blocking ? { blocking } : {}),
      ...(tsigKeys ? { tsigKeys } : {}),
      ...(opts.journalPath !== undefined &&
        { journalPath: opts.journalPath }),
    };
    current = snapshot;
    log.debug("Built a snapshot", {
      version: snapshot.version,
      zones: zones.length,
      forwardZones: forwardZones.length,
    });
    try {
      opts.onSnapshot(snapshot);
    } catch (err) {
      log.error("The snapshot consumer failed", {
        version: snapshot.version,
        error: err,
      });
    }
    markSynced();
  }

  state.start();
  return {
    async stop() {
      stopped = true;
      if (debounce !== undefined) clearTimeout(debounce);
      if (expiry !== undefined) clearTimeout(expiry);
      debounce = expiry = undefined;
      awaitingRelease?.();
      awaitingRelease = undefined;
      await state.stop();
    },
    current: () => current,
    synced,
    refresh: () => schedule(),
    setSettings(next) {
      settings = next;
      schedule();
    },
    setTsigKeys(keys) {
      tsigKeys = keys.length > 0 ? keys : undefined;
      schedule();
    },
  };
}

/** True when a rebuild produced exactly what the snapshot already holds. */
function sameAs(
  snapshot: Snapshot,
  zones: ZoneContent[],
  forwardZones: ForwardZone[],
): boolean {
  return snapshot.zones.length === zones.length &&
    snapshot.zones.every((z, i) => z === zones[i]) &&
    JSON.stringify(snapshot.forwardZones) === JSON.stringify(forwardZones);
}
