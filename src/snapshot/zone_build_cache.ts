/**
 * Remembers each zone's last build (content, hash, problems) under a key made
 * of the zone's and its record sets' content versions, so a change in one
 * zone rebuilds that zone only. A build also remembers when the next
 * `expiresAt` endpoint in it lapses, and is treated as stale from then on.
 */
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { buildZoneContent } from "../zone/content.ts";
import type { MirroredObject } from "./kind_mirror.ts";

/** What buildZoneContent returns. */
export type ZoneContentBuild = ReturnType<typeof buildZoneContent>;
/** One problem buildZoneContent found in a record set. */
export type ZoneProblem = ZoneContentBuild["problems"][number];
/** One endpoint served, but not as written (its record set still Ready). */
export type ZoneWarning = ZoneContentBuild["warnings"][number];

/** A cached outcome: the build, or why it failed. */
export type ZoneBuildOutcome =
  | { ok: true; build: ZoneContentBuild }
  | { ok: false; error: unknown };

interface Entry {
  key: string;
  outcome: ZoneBuildOutcome;
  /** Epoch ms at which an endpoint of this zone expires; the build is stale from then. */
  expiresAt: number | undefined;
}

/**
 * The earliest `kudurru.expiresAt` after `now` among these record sets'
 * endpoints, in epoch ms.
 */
export function nextEndpointExpiry(
  recordSets: readonly MirroredObject<DNSRecordSet>[],
  now: Date,
): number | undefined {
  let next: number | undefined;
  const t = now.getTime();
  for (const rs of recordSets) {
    for (const ep of rs.object.spec?.endpoints ?? []) {
      const at = ep.kudurru?.expiresAt;
      if (at === undefined) continue;
      const ms = Date.parse(at);
      if (ms > t && (next === undefined || ms < next)) next = ms;
    }
  }
  return next;
}

/** Per-zone memo of buildZoneContent. */
export class ZoneBuildCache {
  #entries = new Map<string, Entry>();
  /** How many times buildZoneContent ran; tests read it. */
  builds = 0;

  /**
   * The build of `zone` with `recordSets`, reused while neither changed.
   * `extraKey` adds what else the caller's build depends on (the serial).
   */
  build(
    zone: MirroredObject<DNSZone>,
    recordSets: readonly MirroredObject<DNSRecordSet>[],
    now: Date,
    extraKey = "",
    prepare: (zone: DNSZone) => DNSZone = (z) => z,
  ): ZoneBuildOutcome {
    const name = zone.object.metadata.name;
    const key = [
      zone.contentVersion,
      extraKey,
      ...recordSets.map((rs) =>
        `${
          rs.object.metadata.namespace ?? ""
        }/${rs.object.metadata.name}@${rs.contentVersion}`
      ),
    ].join("|");
    const cached = this.#entries.get(name);
    if (
      cached?.key === key &&
      (cached.expiresAt === undefined || now.getTime() < cached.expiresAt)
    ) {
      return cached.outcome;
    }
    this.builds++;
    let outcome: ZoneBuildOutcome;
    try {
      const build = buildZoneContent(
        prepare(zone.object),
        recordSets.map((rs) => rs.object),
        now,
      );
      outcome = { ok: true, build };
    } catch (error) {
      outcome = { ok: false, error };
    }
    this.#entries.set(name, {
      key,
      outcome,
      expiresAt: nextEndpointExpiry(recordSets, now),
    });
    return outcome;
  }

  /** The last outcome for this zone, whatever its key. */
  last(zoneName: string): ZoneBuildOutcome | undefined {
    return this.#entries.get(zoneName)?.outcome;
  }

  /** Forgets every zone not in `names` (deleted zones). */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.#entries.keys()) {
      if (!names.has(name)) this.#entries.delete(name);
    }
  }

  /** The earliest instant (epoch ms) at which a cached build goes stale. */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const e of this.#entries.values()) {
      if (
        e.expiresAt !== undefined && (next === undefined || e.expiresAt < next)
      ) {
        next = e.expiresAt;
      }
    }
    return next;
  }
}
