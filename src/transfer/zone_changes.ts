/**
 * What follows a primary zone's new serial on the leader: the difference
 * from the serial before goes into the journal (for IXFR, RFC 1995), and
 * the zone's secondaries are told with NOTIFY (RFC 1996) as its policy
 * says (`notify`: `zoneNameServers`, `specified` or `both`).
 *
 * - The zone's name servers are the addresses of its apex NS targets held
 *   in the zone itself (glue), on port 53.
 * - `notifyTargets` are `address` or `address:port` (53 by default).
 * - A NOTIFY is signed with the first of `transferTSIGKeyRefs` when that
 *   key is present: a secondary that transfers with a key expects its
 *   NOTIFY signed with it.
 * - A NOTIFY waits until every listener serves the new serial (onSnapshot
 *   is called once the workers said so): a secondary asks for the SOA at
 *   once, and one that still sees the old serial takes itself for up to
 *   date until its next refresh.
 */
import { serialGreater } from "../dns/serial_number.ts";
import { splitHostPort } from "../dns/ip_text.ts";
import { TYPE } from "../dns/wire/constants.ts";
import type { Logger } from "../log/logger.ts";
import type { ZoneJournal } from "../zone/journal.ts";
import type { ZoneContent } from "../zone/types.ts";
import { diffZones } from "../zone/zone_diff.ts";
import type { Notifier, NotifyResult, NotifyTarget } from "./notify_out.ts";
import type { NamedTsigKey } from "./tsig_key_files.ts";

export interface ZoneChangeOptions {
  logger: Logger;
  /** Told when a zone's NOTIFY failures changed (its status follows). */
  onNotifyFailures?: (zone: string) => void;
  journal?: ZoneJournal;
  notifier?: Notifier;
  /** The TSIG keys as they are now. */
  keys: () => readonly NamedTsigKey[];
}

/** What the leader does on a new serial, and once the serial is served. */
export interface ZoneChanges {
  /** ZoneReconcilerOptions.onNewSerial. */
  onNewSerial(
    zone: string,
    before: ZoneContent | undefined,
    after: ZoneContent,
  ): void;
  /** Every listener serves this snapshot: the NOTIFYs it serves go. */
  onSnapshot(snapshot: { zones: readonly ZoneContent[] }): void;
  /** A NOTIFY's outcome for one secondary (Notifier's onResult). */
  noteResult(result: NotifyResult): void;
  /**
   * The secondaries whose last NOTIFY failed, and why, as one line;
   * undefined when none did (ZoneReconcilerOptions.notifyFailure).
   */
  notifyFailure(zone: string): string | undefined;
  /** Drops the NOTIFYs not sent yet. */
  stop(): void;
}

/** The leader's handling of new serials. */
export function zoneChangeHandler(opts: ZoneChangeOptions): ZoneChanges {
  const log = opts.logger;
  /** Per zone, the content whose serial is told once it is served. */
  const waiting = new Map<string, ZoneContent>();
  /** Per zone, the secondaries ("address port") whose last NOTIFY failed. */
  const failures = new Map<string, Map<string, string>>();
  let stopped = false;

  function record(
    zone: string,
    before: ZoneContent | undefined,
    after: ZoneContent,
  ): void {
    const journal = opts.journal;
    if (journal === undefined) return;
    try {
      if (before !== undefined && serialGreater(after.serial, before.serial)) {
        journal.record(zone, diffZones(before, after));
      } else {
        // Nothing to chain from: IXFR from before here falls back to AXFR.
        journal.forget(zone);
      }
    } catch (error) {
      log.warn(
        "Cannot record the zone's change in its journal; IXFR from before it falls back to AXFR",
        { zone, serial: after.serial, error },
      );
    }
  }

  function notify(zone: string, after: ZoneContent): void {
    const soa = after.rrsets.find((r) =>
      r.type === TYPE.SOA && r.name === after.name
    );
    const targets = notifyTargets(after);
    if (opts.notifier === undefined || soa === undefined) return;
    const ref = after.access?.transferTSIGKeyRefs?.[0];
    const key = ref === undefined
      ? undefined
      : opts.keys().find((k) => k.ref === ref);
    if (ref !== undefined && key === undefined) {
      log.warn("NOTIFY sent unsigned: the zone's TSIG key file is missing", {
        zone,
        key: ref,
      });
    }
    // Secondaries no longer named are no longer failing.
    const failed = failures.get(zone);
    const named = new Set(targets.map((t) => `${t.address} ${t.port}`));
    for (const target of failed?.keys() ?? []) {
      if (!named.has(target)) failed!.delete(target);
    }
    opts.notifier.notify(zone, soa, targets, key);
  }

  return {
    onNewSerial(zone, before, after) {
      record(zone, before, after);
      if (opts.notifier !== undefined && notifyTargets(after).length > 0) {
        waiting.set(zone, after);
      }
    },
    onSnapshot(snapshot) {
      for (const [zone, after] of waiting) {
        const served = snapshot.zones.find((z) => z.name === zone);
        if (
          served === undefined ||
          (served.serial !== after.serial &&
            !serialGreater(served.serial, after.serial))
        ) continue;
        waiting.delete(zone);
        if (!stopped) notify(zone, after);
      }
    },
    noteResult(result) {
      const target = `${result.target.address} ${result.target.port}`;
      let failed = failures.get(result.zone);
      const before = failed?.get(target);
      if (result.outcome === "acknowledged") {
        if (before === undefined) return;
        failed!.delete(target);
        if (failed!.size === 0) failures.delete(result.zone);
      } else {
        const why = result.error ?? "no answer";
        if (before === why) return;
        if (failed === undefined) failures.set(result.zone, failed = new Map());
        failed.set(target, why);
      }
      opts.onNotifyFailures?.(result.zone);
    },
    notifyFailure(zone) {
      const failed = failures.get(zone);
      if (failed === undefined || failed.size === 0) return undefined;
      return `NOTIFY of the last serial got no acknowledgment from ${
        [...failed].map(([target, why]) =>
          `${target.replace(" ", " port ")} (${why})`
        ).join(", ")
      }`;
    },
    stop() {
      stopped = true;
      waiting.clear();
    },
  };
}

/** Whom `content`'s policy says to notify, each address once. */
export function notifyTargets(content: ZoneContent): NotifyTarget[] {
  const mode = content.access?.notify;
  if (mode === undefined) return [];
  const targets = new Map<string, NotifyTarget>();
  const add = (address: string, port: number) =>
    targets.set(`${address} ${port}`, { address, port });
  if (mode === "zoneNameServers" || mode === "both") {
    for (const address of glueOfNameServers(content)) add(address, 53);
  }
  if (mode === "specified" || mode === "both") {
    for (const entry of content.access?.notifyTargets ?? []) {
      if (entry === "") continue;
      const target = splitHostPort(entry);
      add(target.address, target.port);
    }
  }
  return [...targets.values()];
}

/** The A/AAAA of the apex NS targets that the zone holds itself. */
function glueOfNameServers(content: ZoneContent): string[] {
  const ns = content.rrsets.find((r) =>
    r.type === TYPE.NS && r.name === content.name
  );
  const names = new Set(
    (ns?.rdata ?? []).flatMap((d) =>
      d.type === "NS" ? [d.target.toLowerCase()] : []
    ),
  );
  return content.rrsets
    .filter((r) =>
      (r.type === TYPE.A || r.type === TYPE.AAAA) && names.has(r.name)
    )
    .flatMap((r) =>
      r.rdata.flatMap((d) =>
        d.type === "A" || d.type === "AAAA" ? [d.address] : []
      )
    );
}
