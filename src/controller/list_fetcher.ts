/**
 * The list fetcher: while this node leads the "lists" election, it downloads
 * every enabled URL source of every BlockList into
 * `<listsDir>/<sha256(url)>` (conditional GET, size cap, timeout, retries,
 * bounded concurrency, stale-on-unreachable) and keeps BlockList.status in
 * step (docs/design.md#leader-only-side-effects). The loop itself is in
 * list_fetch_loop.ts.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import type { Backoff } from "../snapshot/kind_mirror.ts";
import type { Store } from "../store/store.ts";
import { Limiter } from "./list_fetch_limit.ts";
import type { ObjectKey } from "../api/v1alpha1/meta.ts";
import {
  type ListFetchLoop,
  type ListRefresh,
  startListFetchLoop,
} from "./list_fetch_loop.ts";

export type { ListRefresh, RefreshedSource } from "./list_fetch_loop.ts";

import { TEMP_MARKER } from "../blocking/list_files.ts";

export { listFilePath } from "../blocking/list_files.ts";

export interface ListFetcherOptions {
  store: Store;
  /** Where bodies and their sidecars are written (created when missing). */
  listsDir: string;
  logger: Logger;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Largest body accepted. @default 64 MiB */
  maxBytes?: number;
  /** Per request, body included. @default 30000 */
  timeoutMs?: number;
  /** Downloads at once. @default 4 */
  concurrency?: number;
  /** Waits between attempts; 3 attempts by default. @default [1000, 4000] */
  retryDelaysMs?: number[];
  /** After every attempt failed, wait this long (at most refreshInterval) before trying again. @default 15 min */
  failureRetryMs?: number;
  /** Longest single timer; the clock is read again after it. @default 10 min */
  maxSleepMs?: number;
  /** BlockList changes within this window become one pass. @default 100 */
  debounceMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  /** For BlockLists without spec.refreshInterval (`blocking.refreshInterval`). @default 24 h */
  defaultRefreshMs?: number;
  /** Retry timing when the BlockList watch fails. */
  backoff?: Backoff;
}

/** The first round: every URL source present when the fetcher first synced. */
export interface InitialFetchResult {
  /** URLs fetched, confirmed by a 304, or found fresh on disk. */
  ok: number;
  failed: { url: string; error: string }[];
}

export interface ListFetcher {
  /** Aborts downloads in flight and resolves when every write has ended. */
  stop(): Promise<void>;
  /**
   * Resolves once every URL source present at the first sync has a body on
   * disk and its status written, or has failed (failed sources keep any older
   * copy). Resolves at stop() with what finished by then (unfinished URLs
   * count as failed). Stays pending while this node does not lead.
   */
  initialFetchDone: Promise<InitialFetchResult>;
  /**
   * Fetches the BlockList's enabled URL sources now (`POST …/blocklists/
   * {name}:refresh`); resolves when each was fetched or failed. Only the
   * leader fetches: elsewhere it answers notLeader, naming the leader.
   */
  refresh(key: ObjectKey): Promise<ListRefresh>;
}

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 4000];

/**
 * Creates the lists directory and removes temporary files a crash left
 * behind (no download runs yet: only this fetcher writes there).
 */
async function prepareListsDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.includes(TEMP_MARKER)) {
      await Deno.remove(join(dir, entry.name)).catch(() => {});
    }
  }
}

/** Starts the fetcher; it does its work only while this node leads. */
export function startListFetcher(opts: ListFetcherOptions): ListFetcher {
  const log = opts.logger.with({ component: "list-fetcher" });
  const abort = new AbortController();
  const stopping: Promise<void>[] = [];
  const limiter = new Limiter(opts.concurrency ?? DEFAULT_CONCURRENCY);
  let loop: ListFetchLoop | undefined;
  let resolveInitial!: (r: InitialFetchResult) => void;
  const initialFetchDone = new Promise<InitialFetchResult>((resolve) =>
    resolveInitial = resolve
  );

  function stopLoop(): void {
    if (loop === undefined) return;
    stopping.push(loop.stop());
    loop = undefined;
  }

  const ready = prepareListsDir(opts.listsDir).catch((err) => {
    log.error("Cannot prepare the lists directory", {
      dir: opts.listsDir,
      error: err,
    });
  });

  const elector = opts.store.elector("lists");
  const running = ready.then(() =>
    elector.run(
      abort.signal,
      () => {
        // Leadership handed over after stop() began: work started now would never stop.
        if (abort.signal.aborted) return;
        log.info("Leading: fetching block lists");
        stopLoop();
        loop = startListFetchLoop({
          store: opts.store,
          logger: log,
          listsDir: opts.listsDir,
          fetch: opts.fetch ?? globalThis.fetch,
          maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
          timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          retryDelaysMs: opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
          failureRetryMs: opts.failureRetryMs ?? 15 * 60_000,
          maxSleepMs: opts.maxSleepMs ?? 10 * 60_000,
          debounceMs: opts.debounceMs ?? 100,
          defaultRefreshMs: opts.defaultRefreshMs ?? 24 * 3600_000,
          limiter,
          now: opts.now ?? (() => new Date()),
          onFirstRound: (ok, failed) => {
            if (failed.length > 0) {
              log.warn("Some block lists could not be fetched", { failed });
            }
            resolveInitial({ ok: ok.length, failed });
          },
          ...(opts.backoff ? { backoff: opts.backoff } : {}),
        });
      },
      () => {
        if (loop !== undefined) log.info("No longer leading: stopped");
        stopLoop();
      },
    )
  ).catch((err) => {
    log.error("The lists election failed", { error: err });
  });

  return {
    initialFetchDone,
    refresh(key) {
      if (loop === undefined) {
        return Promise.resolve({
          state: "notLeader",
          leader: elector.leader(),
        });
      }
      return loop.refresh(key);
    },
    async stop() {
      abort.abort();
      await running;
      stopLoop();
      await Promise.all(stopping);
      // Never led: there was no first round; callers waiting on it move on.
      resolveInitial({ ok: 0, failed: [] });
    },
  };
}
