/**
 * Watches the objects directory: any event re-arms a debounce timer (for at
 * most MAX_DEBOUNCE_FACTOR × debounceMs after the first, so a file touched
 * without pause cannot hold reloads back); a poll runs a full load on a
 * timer and re-attaches the watch when the directory got replaced (a new
 * inode or birth time, e.g. `rm -r` + `mkdir`). A directory that is missing
 * or went away is looked for again every debounceMs, and every attach is
 * followed by a load: files written before the watch saw them (during the
 * first load, or into a directory made anew) are never left for the poll.
 */
import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";

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
  let eventLoop: Promise<void> = Promise.resolve();
  let debounce: ReturnType<typeof setTimeout> | undefined;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let polling: Promise<void> = Promise.resolve();
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the events the pending load waits for began. */
  let burstStart = 0;

  const bump = () => {
    const now = Date.now();
    if (debounce === undefined) burstStart = now;
    clearTimeout(debounce);
    const latest = burstStart + MAX_DEBOUNCE_FACTOR * opts.debounceMs;
    debounce = setTimeout(() => {
      debounce = undefined;
      opts.onChange();
    }, Math.max(0, Math.min(opts.debounceMs, latest - now)));
  };

  /** Looks for the directory again soon (missing, or its watch ended). */
  const retryAttach = () => {
    if (signal.aborted || retryTimer !== undefined) return;
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      if (signal.aborted) return;
      await attach();
      if (!watcher) retryAttach();
    }, opts.debounceMs);
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

  /** One attach at a time (the poll's and a retry's could meet). */
  let attaching: Promise<void> = Promise.resolve();
  const attach = () => attaching = attaching.then(attachOnce);

  const attachOnce = async () => {
    if (!opts.dir || signal.aborted) return;
    const current = await dirIdentity(opts.dir);
    if (signal.aborted || (current === identity && watcher)) return;
    detach();
    if (current === "") {
      retryAttach();
      return;
    }
    const self = resolve(opts.dir);
    try {
      const w = Deno.watchFs(opts.dir, { recursive: false });
      watcher = w;
      identity = current;
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
            // new directory with the same inode appears; retryAttach looks.
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
        if (watcher === w) {
          detach();
          retryAttach();
        }
      })();
      opts.logger?.debug("Watching objects directory", { dir: opts.dir });
    } catch (e) {
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
        if (!signal.aborted) await attach();
        schedulePoll();
      })();
    }, opts.pollIntervalMs);
  };

  await attach();
  schedulePoll();
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  clearTimeout(debounce);
  clearTimeout(pollTimer);
  clearTimeout(retryTimer);
  await polling;
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
