/**
 * The Snapshot: everything a data-plane worker answers from. The main thread
 * builds it from the Store watch and posts it to every worker; a worker swaps
 * it in with one assignment. Plain data (structured-clone safe).
 */
import type { ForwardZone, ZoneContent } from "../zone/types.ts";
import type { DataPlaneSettings } from "./settings.ts";
import type { BlockingSnapshot } from "../blocking/blocking_snapshot.ts";
import type { TsigKey } from "../dns/tsig/tsig.ts";

export interface Snapshot {
  /** Increases with every snapshot the main thread builds. */
  version: number;
  /** ISO 8601 time it was built. */
  builtAt: string;
  node: {
    name: string;
    version: string;
  };
  zones: ZoneContent[];
  forwardZones: ForwardZone[];
  /**
   * Upstreams, cache and rate-limit settings from the configuration file.
   * Absent in snapshots built without a configuration (unit tests): then
   * nothing is forwarded, cached or limited.
   */
  settings?: DataPlaneSettings;
  /**
   * Lists, client groups, policies and blocking settings. Absent in
   * snapshots built without them (unit tests): then every client is in the
   * "default" group and nothing is blocked.
   */
  blocking?: BlockingSnapshot;
  /**
   * The TSIG keys (RFC 8945) of `<dataDir>/keys/tsig`, each with the name
   * zones refer to it by. Absent: no key, and every signed query is
   * answered BADKEY.
   */
  tsigKeys?: (TsigKey & { ref: string })[];
  /**
   * The SQLite file of the zone journal (src/zone/journal.ts), which IXFR
   * reads. Absent: IXFR answers with the whole zone.
   */
  journalPath?: string;
}
