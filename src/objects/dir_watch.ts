/**
 * Watches the objects directory: any event re-arms a debounce timer (for at
 * most MAX_DEBOUNCE_FACTOR × debounceMs after the first, so a file touched
 * without pause cannot hold reloads back); a poll runs a full load on a
 * timer. Every debounceMs the directory's identity is compared with the
 * watched one's, and the watch re-attached when it changed: a directory
 * replaced (a new inode or birth time, e.g. `rm -r` + `mkdir`), or a symlink
 * to it re-pointed (`ln -s rel2 tmp && mv -T tmp objects.d`, where inotify
 * stays on the old target and no event comes). A directory that is missing
 * or went away is found the same way, and every attach is followed by a
 * load: files written before the watch saw them (during the first load, or
 * into a directory made anew) are never left for the poll.
 *
 * A second load follows every burst of events once settleMs have passed
 * since its last event: a file held as not settled then (unsettled_files.ts)
 * has stood still long enough to be applied.
 */
import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import { FILE_SETTLE_MS } from "./unsettled_files.ts";

/** Events keep postponing a load for at most this many debounce periods. */
export const MAX_DEBOUNCE_FACTOR = 4;

export interface DirWatchOptions {
  /** "" or undefined: nothing to watch, poll only. */
  dir?: string;
  debounceMs: number;
  /** < 0 disables the poll. */
  pollIntervalMs: number;
  /** Called once the events have settled for debounceMs. */
  onChange: () => void;
  /** Called on every poll tick; the next tick waits for it. */
  onPoll: () => Promise<void>;
  /** Told whenever the watch attaches (true) or goes away (false). */
  onWatching?: (watching: boolean) => void;
  /** How long after the last event the settle load runs. @default FILE_SETTLE_MS + debounceMs */
  settleMs?: number;
  logger?: Logger;
}

/** Runs until the signal aborts, then closes everything it opened. */
export async function watchDirectory(
  signal: AbortSignal,
  opts: DirWatchOptions,
): Promise<void> {
  if (signal.aborted) return;
  let watcher: Deno.FsWatcher | undefined;
  let identity = "";
  /** The identity watchFs last failed on (inotify limits): rechecks skip it. */
  let failedIdentity = "";
  let eventLoop: Promise<void> = Promise.resolve();
  let debounce: ReturnType<typeof setTimeout> | undefined;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let polling: Promise<void> = Promise.resolve();
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;
  let rechecking: Promise<void> = Promise.resolve();
  let settleTimer: ReturnType<typeof setTimeout> | undefined;
  const settleMs = opts.settleMs ?? FILE_SETTLE_MS + opts.debounceMs;
  /** When the events the pending load waits for began. */
  let burstStart = 0;

  const bump = () => {
    // An attach or the event loop may still run while the watch stops: no
    // load may be scheduled after it has.
    if (signal.aborted) return;
    const now = Date.now();
    if (debounce === undefined) burstStart = now;
    clearTimeout(debounce);
    const latest = burstStart + MAX_DEBOUNCE_FACTOR * opts.debounceMs;
    debounce = setTimeout(() => {
      debounce = undefined;
      opts.onChange();
    }, Math.max(0, Math.min(opts.debounceMs, latest - now)));
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      settleTimer = undefined;
      opts.onChange();
    }, settleMs);
  };

  const detach = () => {
    const w = watcher;
    watcher = undefined;
    identity = "";
    if (w) opts.onWatching?.(false);
    try {
      w?.close();
    } catch { /* already closed */ }
  };

  /**
   * One attach at a time (the poll's and a recheck's could meet). Only the
   * poll tries again a directory watchFs failed on: a recheck every
   * debounceMs would log the same failure twice a second.
   */
  let attaching: Promise<void> = Promise.resolve();
  const attach = (retryFailed = false) =>
    attaching = attaching.then(() => attachOnce(retryFailed));

  const attachOnce = async (retryFailed: boolean) => {
    if (!opts.dir || signal.aborted) return;
    const current = await dirIdentity(opts.dir);
    if (signal.aborted || (current === identity && watcher)) return;
    if (current !== "" && current === failedIdentity && !retryFailed) return;
    detach();
    if (current === "") return; // the next recheck looks again
    const self = resolve(opts.dir);
    try {
      const w = Deno.watchFs(opts.dir, { recursive: false });
      watcher = w;
      identity = current;
      failedIdentity = "";
      opts.onWatching?.(true);
      // What was written before this watch began is seen by a load.
      bump();
      const previous = eventLoop;
      eventLoop = (async () => {
        await previous;
        try {
          for await (const event of w) {
            bump();
            // The directory itself went away: this watch is dead even if a
            // new directory with the same inode appears; a recheck looks.
            if (
              event.kind === "remove" &&
              event.paths.some((p) => resolve(p) === self)
            ) break;
          }
        } catch (e) {
          opts.logger?.warn("Objects directory watch ended", {
            dir: opts.dir,
            err: e,
          });
        }
        if (watcher === w) detach(); // a recheck attaches anew
      })();
      opts.logger?.debug("Watching objects directory", { dir: opts.dir });
    } catch (e) {
      failedIdentity = current;
      opts.logger?.warn("Cannot watch objects directory", {
        dir: opts.dir,
        err: e,
      });
    }
  };

  const schedulePoll = () => {
    if (opts.pollIntervalMs < 0 || signal.aborted) return;
    pollTimer = setTimeout(() => {
      polling = (async () => {
        await opts.onPoll();
        if (!signal.aborted) await attach(true);
        schedulePoll();
      })();
    }, opts.pollIntervalMs);
  };

  /** Re-attaches when the directory changed identity, appeared or went away. */
  const scheduleRecheck = () => {
    if (!opts.dir || signal.aborted) return;
    recheckTimer = setTimeout(() => {
      rechecking = (async () => {
        await attach();
        scheduleRecheck();
      })();
    }, opts.debounceMs);
  };

  await attach();
  scheduleRecheck();
  schedulePoll();
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  clearTimeout(debounce);
  clearTimeout(settleTimer);
  clearTimeout(pollTimer);
  clearTimeout(recheckTimer);
  await polling;
  await rechecking;
  await attaching;
  clearTimeout(pollTimer);
  detach();
  await eventLoop;
}

/**
 * "dev:ino:birthtime" of the directory, "" when it is missing or not a
 * directory. A directory removed and created again often gets the same inode
 * (seen on ext4), and its "remove" event can be lost under load; the birth
 * time tells the two apart wherever the filesystem records it.
 */
async function dirIdentity(dir: string): Promise<string> {
  try {
    const info = await Deno.stat(dir);
    return info.isDirectory
      ? `${info.dev}:${info.ino}:${info.birthtime?.getTime() ?? ""}`
      : "";
  } catch {
    return "";
  }
}
