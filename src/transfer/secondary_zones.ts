/**
 * Secondary zones (`DNSZone.type: secondary`): every node keeps its own
 * copy, transferred from the zone's primaries (transfer_in.ts) and kept in
 * its local.db (secondary_copies.ts), so a restart serves the copy at once.
 *
 * Timers follow the copy's SOA (RFC 1035 §3.3.13, RFC 1996): a refresh
 * every `refresh` seconds; after a failed one, again every `retry`; a copy
 * that no primary confirmed for `expire` seconds is no longer served (its
 * names answer SERVFAIL, never NXDOMAIN). A NOTIFY from one of the
 * primaries refreshes at once. Until the first transfer succeeds the zone
 * answers SERVFAIL and transfers are tried again every 10 s, then less
 * often. The primaries are tried in order at each refresh.
 *
 * Status (serial, lastTransfer, lastRefresh, a Ready condition saying
 * Transferred, TransferFailed or Expired) is written to the zone object.
 */
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import type { Logger } from "../log/logger.ts";
import { setCondition } from "../controller/conditions.ts";
import type { SoaRdata } from "../dns/rrset.ts";
import { TYPE } from "../dns/wire/constants.ts";
import { splitHostPort } from "../dns/ip_text.ts";
import { normalizeName } from "../dns/name.ts";
import { KindMirror } from "../snapshot/kind_mirror.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import { compareNames } from "../zone/canonical_order.ts";
import { accessPolicyOf } from "../zone/content.ts";
import type { ZoneContent } from "../zone/types.ts";
import type { SecondaryCopies, SecondaryCopy } from "./secondary_copies.ts";
import {
  TransferError,
  transferIn,
  type TransferOptions,
} from "./transfer_in.ts";
import type { NamedTsigKey } from "./tsig_key_files.ts";

export interface SecondaryZonesOptions {
  store: Store;
  logger: Logger;
  /** Where copies are kept; absent: in memory only. */
  copies?: SecondaryCopies;
  /** The TSIG keys as they are now. */
  keys: () => readonly NamedTsigKey[];
  /** Told when a zone's content or availability changed. */
  onChange: () => void;
  /**
   * Told each refresh's result: "AXFR" or "IXFR" (transferred), "current",
   * or the failure's reason (TransferError.reason, "no_key").
   */
  onRefresh?: (zone: string, result: string) => void;
  /** @default Date.now */
  now?: () => number;
  /** For the transfers. */
  transfer?: TransferOptions;
}

export interface SecondaryZones {
  /** The content to serve for `zoneName`, while it is a secondary zone. */
  contentOf(zoneName: string): ZoneContent | undefined;
  /** A NOTIFY for `zoneName` came from `from` (already checked). */
  notified(zoneName: string, from: string): void;
  stop(): Promise<void>;
}

/** Before any copy: the first retries, doubling up to the cap. */
const FIRST_RETRY_MS = 10_000;
const MAX_FIRST_RETRY_MS = 300_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface ZoneState {
  object: DNSZone;
  name: string;
  copy: SecondaryCopy | undefined;
  content: ZoneContent | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: Promise<void> | undefined;
  /** A refresh was asked for while one ran. */
  again: boolean;
  failures: number;
  lastError: string | undefined;
  expired: boolean;
}

export function startSecondaryZones(
  opts: SecondaryZonesOptions,
): SecondaryZones {
  const log = opts.logger.with({ component: "secondary-zones" });
  const now = opts.now ?? Date.now;
  const zones = new Map<string, ZoneState>();
  let stopped = false;
  /** Ends the transfers under way when the zones stop. */
  const stopping = new AbortController();
  const transferOptions = { ...opts.transfer, signal: stopping.signal };

  const mirror = new KindMirror<DNSZone>({
    store: opts.store,
    kind: "DNSZone",
    logger: log,
    onChange: () => sync(),
  });

  /** Starts, updates and drops zones to match the secondary objects. */
  function sync(): void {
    if (stopped) return;
    const seen = new Set<string>();
    for (const { object } of mirror.values()) {
      if (object.spec?.type !== "secondary") continue;
      const name = normalizeName(object.spec.zoneName);
      seen.add(name);
      const state = zones.get(name);
      if (state === undefined) {
        start(name, object);
      } else if (
        state.object.metadata.generation !== object.metadata.generation ||
        state.object.metadata.uid !== object.metadata.uid
      ) {
        state.object = object;
        state.content = contentFor(state);
        opts.onChange();
        refreshSoon(state);
      } else {
        state.object = object;
      }
    }
    for (const [name, state] of zones) {
      if (seen.has(name)) continue;
      clearTimeout(state.timer);
      zones.delete(name);
      try {
        opts.copies?.forget(name);
      } catch (error) {
        log.warn("Cannot drop the copy of a zone that is gone", {
          zone: name,
          error,
        });
      }
      opts.onChange();
    }
  }

  function start(name: string, object: DNSZone): void {
    let copy: SecondaryCopy | undefined;
    try {
      copy = opts.copies?.load(name);
    } catch (error) {
      log.warn(
        "The kept copy of the zone does not read; transferring it again",
        {
          zone: name,
          error,
        },
      );
    }
    const state: ZoneState = {
      object,
      name,
      copy,
      content: undefined,
      timer: undefined,
      running: undefined,
      again: false,
      failures: 0,
      lastError: undefined,
      expired: copy !== undefined &&
        now() - copy.refreshedAt > soaOf(copy).expire * 1000,
    };
    state.content = contentFor(state);
    zones.set(name, state);
    opts.onChange();
    refreshSoon(state);
  }

  function refreshSoon(state: ZoneState): void {
    schedule(state, 0);
  }

  function schedule(state: ZoneState, delayMs: number): void {
    if (stopped) return;
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      refresh(state);
    }, Math.min(MAX_TIMER_MS, Math.max(0, delayMs)));
  }

  function refresh(state: ZoneState): void {
    if (stopped || zones.get(state.name) !== state) return;
    if (state.running !== undefined) {
      state.again = true;
      return;
    }
    state.running = refreshNow(state).finally(() => {
      state.running = undefined;
      if (state.again) {
        state.again = false;
        refresh(state);
      }
    });
  }

  async function refreshNow(state: ZoneState): Promise<void> {
    const spec = state.object.spec!.secondary!;
    const ref = spec.tsigKeyRef;
    const key = ref === undefined
      ? undefined
      : opts.keys().find((k) => k.ref === ref);
    const errors: string[] = [];
    if (ref !== undefined && key === undefined) {
      errors.push(`the TSIG key file keys/tsig/${ref}.key is missing`);
      opts.onRefresh?.(state.name, "no_key");
    } else {
      for (const primary of spec.primaries) {
        const { address, port } = splitHostPort(primary);
        const source = { address, port, ...(key && { key }) };
        try {
          opts.onRefresh?.(state.name, await fetchFrom(state, source));
          return succeeded(state);
        } catch (error) {
          const transfer = error instanceof TransferError;
          errors.push(
            `${primary}: ${transfer ? error.message : String(error)}`,
          );
          opts.onRefresh?.(state.name, transfer ? error.reason : "failed");
        }
        if (stopped) return;
      }
    }
    failed(state, errors.join("; "));
  }

  /**
   * One primary: the copy brought up to date ("current", "AXFR", "IXFR"),
   * or a TransferError.
   */
  async function fetchFrom(
    state: ZoneState,
    source: Parameters<typeof transferIn>[1],
  ): Promise<string> {
    const held = state.copy === undefined
      ? undefined
      : { serial: state.copy.serial, rrsets: state.copy.rrsets };
    let result;
    try {
      result = await transferIn(state.name, source, held, transferOptions);
    } catch (error) {
      // A primary that will not send differences: the whole zone then.
      if (
        !(error instanceof TransferError) || error.reason !== "ixfr_soa_only"
      ) {
        throw error;
      }
      result = await transferIn(
        state.name,
        source,
        undefined,
        transferOptions,
      );
    }
    const at = now();
    if (result.kind === "current") {
      state.copy!.refreshedAt = at;
      persist(() => opts.copies?.touch(state.name, at));
      return "current";
    }
    state.copy = {
      serial: result.serial,
      rrsets: result.rrsets,
      transferredAt: at,
      refreshedAt: at,
    };
    persist(() => opts.copies?.save(state.name, state.copy!));
    log.info("Transferred a secondary zone", {
      zone: state.name,
      serial: result.serial,
      how: result.how,
      records: result.records,
      messages: result.messages,
      bytes: result.bytes,
    });
    return result.how;
  }

  function persist(write: () => void): void {
    try {
      write();
    } catch (error) {
      log.warn(
        "Cannot keep the zone's copy in local.db; a restart transfers it again",
        {
          error,
        },
      );
    }
  }

  function succeeded(state: ZoneState): void {
    const wasUnavailable = state.content?.unavailable !== undefined;
    const changedSerial = state.content?.serial !== state.copy!.serial;
    state.failures = 0;
    state.lastError = undefined;
    state.expired = false;
    if (changedSerial || wasUnavailable) {
      state.content = contentFor(state);
      opts.onChange();
    }
    // A zone whose expire is shorter than its refresh is checked before it
    // would expire unseen.
    const soa = soaOf(state.copy!);
    schedule(state, Math.min(soa.refresh, soa.expire) * 1000);
    writeStatus(state);
  }

  function failed(state: ZoneState, error: string): void {
    state.failures++;
    if (state.lastError !== error) {
      log.warn("Cannot refresh a secondary zone from its primaries", {
        zone: state.name,
        error,
      });
    }
    state.lastError = error;
    const copy = state.copy;
    if (copy === undefined) {
      schedule(
        state,
        Math.min(
          MAX_FIRST_RETRY_MS,
          FIRST_RETRY_MS * 2 ** (state.failures - 1),
        ),
      );
    } else {
      const soa = soaOf(copy);
      const expiresAt = copy.refreshedAt + soa.expire * 1000;
      if (!state.expired && now() >= expiresAt) {
        state.expired = true;
        state.content = contentFor(state);
        log.warn(
          "A secondary zone expired: its names answer SERVFAIL until a primary answers",
          {
            zone: state.name,
            serial: copy.serial,
          },
        );
        opts.onChange();
      }
      const untilExpiry = expiresAt - now();
      schedule(
        state,
        untilExpiry > 0
          ? Math.min(soa.retry * 1000, untilExpiry)
          : soa.retry * 1000,
      );
    }
    writeStatus(state);
  }

  /** What the snapshot serves for the zone. */
  function contentFor(state: ZoneState): ZoneContent {
    const object = state.object;
    const copy = state.copy;
    const primaries = object.spec!.secondary!.primaries.map((p) =>
      splitHostPort(p).address
    );
    const base = {
      name: state.name,
      objectName: object.metadata.name,
      access: accessPolicyOf(object),
      primaries,
    };
    if (copy === undefined) {
      return {
        ...base,
        serial: 0,
        rrsets: [],
        unavailable: "not transferred from its primaries yet",
      };
    }
    return {
      ...base,
      serial: copy.serial,
      rrsets: sorted(copy.rrsets),
      ...(state.expired && {
        unavailable: "expired: no primary confirmed it within the SOA expire",
      }),
    };
  }

  async function writeStatus(state: ZoneState): Promise<void> {
    const object = state.object;
    const at = new Date(now());
    const copy = state.copy;
    const verdict = state.lastError === undefined
      ? {
        type: "Ready",
        status: "True" as const,
        reason: "Transferred",
        message: `serial ${copy!.serial} from the primaries`,
      }
      : state.expired
      ? {
        type: "Ready",
        status: "False" as const,
        reason: "Expired",
        message:
          `no primary confirmed the copy within the SOA expire: ${state.lastError}`
            .slice(0, 1024),
      }
      : {
        type: "Ready",
        status: copy === undefined ? "False" as const : "True" as const,
        reason: "TransferFailed",
        message: state.lastError.slice(0, 1024),
      };
    const status = {
      ...object.status,
      observedGeneration: object.metadata.generation ?? 0,
      ...(copy && {
        serial: copy.serial,
        lastTransfer: new Date(copy.transferredAt).toISOString(),
        lastRefresh: new Date(copy.refreshedAt).toISOString(),
      }),
      conditions: setCondition(object.status?.conditions, verdict, at),
    };
    if (JSON.stringify(status) === JSON.stringify(object.status)) return;
    try {
      const stored = await opts.store.updateStatus({ ...object, status });
      if (zones.get(state.name) === state) state.object = stored as DNSZone;
    } catch (error) {
      if (error instanceof NotFoundError) return;
      log.warn("Cannot write a secondary zone's status", {
        zone: state.name,
        error,
      });
    }
  }

  mirror.start();
  return {
    contentOf: (zoneName) => zones.get(zoneName)?.content,
    notified(zoneName, from) {
      const state = zones.get(zoneName);
      if (state === undefined) return;
      log.info("NOTIFY from a primary: refreshing", { zone: zoneName, from });
      refresh(state);
    },
    async stop() {
      stopped = true;
      stopping.abort();
      for (const state of zones.values()) clearTimeout(state.timer);
      await mirror.stop();
      await Promise.all(
        [...zones.values()].map((s) => s.running?.catch(() => {})),
      );
    },
  };
}

function soaOf(copy: SecondaryCopy): SoaRdata {
  const soa = copy.rrsets.find((r) => r.type === TYPE.SOA)!;
  return soa.rdata[0] as SoaRdata;
}

/** RRsets in canonical name order, then type (as zone content is kept). */
function sorted(rrsets: ZoneContent["rrsets"]): ZoneContent["rrsets"] {
  return [...rrsets].sort((a, b) =>
    compareNames(a.name, b.name) || a.type - b.type
  );
}
