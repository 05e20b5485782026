/**
 * What the cache stage offers (cache.ts makes it): the stage, plus the
 * operations `kudurru cache flush`, the cache dump, the other listener
 * workers and tests use; and how it is made.
 */
import type { Request } from "../../pipeline/request.ts";
import type { Stage } from "../../pipeline/stage.ts";
import type { CacheSettings } from "../../pipeline/settings.ts";
import type { CacheStats } from "../../pipeline/cache_stats.ts";
import type { SerializedEntry } from "../../pipeline/cache_dump.ts";
import type { FlushOptions } from "../../pipeline/flushed_names.ts";

export interface CacheStageOptions {
  /** Milliseconds since the epoch; tests pass a fake clock. @default Date.now */
  now?: () => number;
  /**
   * What an answer to `req` depends on besides its question (the client's
   * upstream group, the ECS option sent: RFC 7871 §7.3), as part of its
   * key; "" for nothing. False: the query bypasses the cache, neither
   * answered from it nor stored (conditional forwarding). @default ""
   */
  scope?: (req: Request) => string | false;
}

/** The stage, plus the operations `kudurru cache flush` and tests use. */
export interface CacheStage extends Stage {
  /**
   * Takes the snapshot's `cache` settings as soon as it arrives (the
   * handler's setSnapshot), before any query: their bounds then apply to
   * entries imported from a dump or another worker too, and a lower bound
   * drops the least recently used entries at once. Queries apply the
   * settings they carry as well.
   */
  applySettings(settings: CacheSettings | undefined): void;
  /**
   * Drops every entry, or every entry for `name` (all types) and with
   * `subtree` for the names below it; returns how many went.
   */
  flush(name?: string, opts?: FlushOptions): number;
  /** Counts since the stage was made, and the current number of entries. */
  stats(): CacheStats;
  /** Resolves when no background refresh (prefetch, late answer) is running. */
  whenIdle(): Promise<void>;
  /**
   * The entries still usable at `now` (fresh or within the stale window of
   * the last settings seen), as plain data; see cache_dump.ts.
   * @default now the stage's clock
   */
  exportEntries(now?: number): SerializedEntry[];
  /** Takes entries from a dump; returns how many were usable at `now`. */
  importEntries(entries: readonly unknown[], now?: number): number;
  /**
   * Takes entries another worker shares (onCutAnswerStored), within the
   * size bounds of the settings last seen (the defaults before any): unlike
   * a dump, they never make room for themselves.
   */
  importShared(entries: readonly unknown[], now?: number): number;
  /**
   * Calls `listener` with the entries the other listener workers should
   * have: each entry stored from an answer cut for its client (TC=1, or
   * additional records left out), and each entry answered with TC=1 from
   * the cache (fresh, stale or to a coalesced asker), before that answer
   * goes out: the client's retry comes over TCP, which another worker with
   * its own cache serves. An entry goes once, and once more after each
   * failed refresh (with when it failed, so the other worker answers it
   * stale at once too). Entries of more than MAX_SHARED_OCTETS are not
   * handed on (see README.md).
   */
  onCutAnswerStored(listener: (entry: SerializedEntry) => void): void;
}
