/**
 * Watches the objects directory: any event re-arms a debounce timer; a poll
 * runs a full load on a timer and re-attaches the watch when the directory
 * was missing or got replaced (a new inode or birth time, e.g. `rm -r` +
 * `mkdir`).
 */
import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";

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

  const bump = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      opts.onChange();
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

  const attach = async () => {
    if (!opts.dir) return;
    const current = await dirIdentity(opts.dir);
    if (current === identity && watcher) return;
    detach();
    if (current === "") return; // missing: the poll tries again
    const self = resolve(opts.dir);
    try {
      const w = Deno.watchFs(opts.dir, { recursive: false });
      watcher = w;
      identity = current;
      opts.onWatching?.(true);
      const previous = eventLoop;
      eventLoop = (async () => {
        await previous;
        try {
          for await (const event of w) {
            bump();
            // The directory itself went away: this watch is dead even if a
            // new directory with the same inode appears; the poll re-attaches.
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
        if (watcher === w) detach();
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
  await polling;
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
