/**
 * The leader's list loop: it mirrors BlockList objects, downloads every
 * enabled URL source when it is due (refreshInterval, a little jittered;
 * sooner after a failure), and writes each BlockList's status whenever what
 * it knows differs from the stored status. Level-triggered: a new leader
 * reads the sidecars on its disk and fetches only what is due or missing.
 */
import type { BlockList } from "../api/v1alpha1/blocklist.ts";
import { formatKey, keyOf, type ObjectKey } from "../api/v1alpha1/meta.ts";
import type { ListFormat } from "../blocking/types.ts";
import { parseDuration } from "../config/duration.ts";
import type { Logger } from "../log/logger.ts";
import { type Backoff, KindMirror } from "../snapshot/kind_mirror.ts";
import { jsonEqual } from "../store/apply_rules.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import { FirstRound, type FirstRoundReport } from "./list_fetch_first_round.ts";
import { runListFetch } from "./list_fetch_job.ts";
import type { Limiter } from "./list_fetch_limit.ts";
import { readListMeta } from "../blocking/list_meta.ts";
import { InlineCounts } from "./list_fetch_inline.ts";
import { ListFilesSweep } from "./list_files_sweep.ts";
import { blockListStatus, type UrlKnowledge } from "./list_fetch_status.ts";
import { WrittenStatuses } from "./list_fetch_written.ts";

export interface ListFetchLoopOptions {
  store: Store;
  logger: Logger;
  listsDir: string;
  fetch: typeof fetch;
  maxBytes: number;
  timeoutMs: number;
  retryDelaysMs: readonly number[];
  /** Wait after a failed fetch (all attempts) before the next try, at most refreshInterval. */
  failureRetryMs: number;
  /** Longest timer; the clock is read again after it (wall-clock jumps, tests). */
  maxSleepMs: number;
  debounceMs: number;
  /** For BlockLists without spec.refreshInterval. */
  defaultRefreshMs: number;
  limiter: Limiter;
  now: () => Date;
  backoff?: Backoff;
  /** Told once, when every URL present at the first sync has been fetched (or found fresh) or failed. */
  onFirstRound: FirstRoundReport;
}

/** What one URL source's fetch came to, for a refresh. */
export interface RefreshedSource {
  url: string;
  /** Fetched, or confirmed unchanged by a 304. */
  ok: boolean;
  /** The body differs from the copy held before. */
  changed?: boolean;
  /** When the copy now held was fetched (ISO 8601). */
  fetchedAt?: string;
  /** Why not, when not ok (an older copy, if any, stays in use). */
  error?: string;
}

/** What a refresh of one BlockList came to. */
export type ListRefresh =
  /** Every enabled URL source was fetched (or failed) after the request. */
  | { state: "fetched"; sources: RefreshedSource[] }
  /** This node does not fetch lists: `leader` does. */
  | { state: "notLeader"; leader: string }
  /** The loop does not hold the BlockList (yet: it was just created). */
  | { state: "unknown" };

export interface ListFetchLoop {
  /** Aborts downloads in flight and resolves when everything has ended. */
  stop(): Promise<void>;
  /**
   * Fetches every enabled URL source of the BlockList now, whatever its
   * refreshInterval says (a conditional GET, as always); resolves once each
   * has been fetched or has failed, by fetches that started after the call.
   */
  refresh(
    key: ObjectKey,
  ): Promise<Exclude<ListRefresh, { state: "notLeader" }>>;
}

/** Refreshes come up to this share of refreshInterval early, so lists spread out. */
const JITTER = 0.05;
const STATUS_RETRY_MS = 1000;

interface UrlEntry {
  /** Undefined until the sidecar on disk has been read. */
  known?: UrlKnowledge;
  busy: boolean;
  failedAt: number | undefined;
  jitter: number;
  loggedError: string | undefined;
  /** A refresh asked for it: fetch at the next pass, due or not. */
  forced: boolean;
  /** The refreshes waiting for its next fetch. */
  waiters: ((source: RefreshedSource) => void)[];
}

function newEntry(): UrlEntry {
  return {
    busy: false,
    jitter: Math.random() * JITTER,
    failedAt: undefined,
    loggedError: undefined,
    forced: false,
    waiters: [],
  };
}

/** Tells every refresh waiting on `e` how its fetch ended. */
function settleWaiters(e: UrlEntry, source: RefreshedSource): void {
  for (const resolve of e.waiters.splice(0)) resolve(source);
  e.forced = false;
}

interface Wanted {
  formats: Set<ListFormat>;
  intervalMs: number;
}

export function startListFetchLoop(opts: ListFetchLoopOptions): ListFetchLoop {
  const log = opts.logger;
  const abort = new AbortController();
  const urls = new Map<string, UrlEntry>();
  const inline = new InlineCounts();
  const written = new WrittenStatuses();
  const tasks = new Set<Promise<void>>();
  const firstRound = new FirstRound(opts.onFirstRound);
  const sweep = new ListFilesSweep(opts.listsDir, log);
  /** The last status-write error logged per BlockList: a repeating one is logged once. */
  const writeFailures = new Map<string, string>();
  let dirty = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  const mirror = new KindMirror<BlockList>({
    store: opts.store,
    kind: "BlockList",
    logger: log,
    onChange: (change) => {
      written.observe(change);
      schedule(opts.debounceMs);
    },
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
  });

  function schedule(delay: number): void {
    if (abort.signal.aborted || !mirror.isSynced) return;
    dirty = true;
    if (timer !== undefined || running !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = pass().catch((err) => {
        log.error("The list loop failed a pass", { error: err });
      }).finally(() => {
        running = undefined;
        if (dirty) schedule(opts.debounceMs);
      });
    }, Math.max(0, delay));
  }

  function track(task: Promise<void>): void {
    tasks.add(task);
    task.finally(() => {
      tasks.delete(task);
      schedule(0);
    });
  }

  function collectWanted(): Map<string, Wanted> {
    const wanted = new Map<string, Wanted>();
    for (const m of mirror.values()) {
      const spec = m.object.spec;
      const intervalMs = parseDuration(spec?.refreshInterval ?? "") ??
        opts.defaultRefreshMs;
      for (const source of spec?.sources ?? []) {
        if (source.url === undefined || !source.enabled) continue;
        const w = wanted.get(source.url) ??
          { formats: new Set<ListFormat>(), intervalMs };
        w.formats.add(source.format);
        w.intervalMs = Math.min(w.intervalMs, intervalMs);
        wanted.set(source.url, w);
      }
    }
    return wanted;
  }

  function dueAt(e: UrlEntry, intervalMs: number): number {
    const meta = e.known?.meta;
    if (e.failedAt !== undefined) {
      return e.failedAt + Math.min(intervalMs, opts.failureRetryMs);
    }
    if (!meta) return 0;
    return Date.parse(meta.fetchedAt) + intervalMs * (1 - e.jitter);
  }

  function load(url: string, e: UrlEntry): void {
    e.busy = true;
    track(
      readListMeta(opts.listsDir, url).catch((err) => {
        log.warn("Cannot read the cached list", { url, error: err });
        return undefined;
      }).then((meta) => {
        e.known = meta ? { meta } : {};
        e.busy = false;
      }),
    );
  }

  function fetchUrl(url: string, e: UrlEntry, w: Wanted, network: boolean) {
    e.busy = true;
    // Refreshes asked for after this fetch started wait for the next one.
    const waiting = e.waiters.splice(0);
    e.forced = false;
    const tell = (source: RefreshedSource) => {
      for (const resolve of waiting) resolve(source);
    };
    track(
      runListFetch({
        url,
        formats: [...w.formats],
        network,
        listsDir: opts.listsDir,
        fetch: opts.fetch,
        maxBytes: opts.maxBytes,
        timeoutMs: opts.timeoutMs,
        retryDelaysMs: opts.retryDelaysMs,
        limiter: opts.limiter,
        signal: abort.signal,
        now: opts.now,
        logger: log,
      }).then((outcome) => {
        e.busy = false;
        if (abort.signal.aborted) {
          tell({ url, ok: false, error: "the list fetcher stopped" });
          return;
        }
        if (outcome.ok) {
          const changed = outcome.meta.digest !== e.known?.meta?.digest;
          tell({ url, ok: true, changed, fetchedAt: outcome.meta.fetchedAt });
          e.known = { meta: outcome.meta };
          e.failedAt = undefined;
          e.loggedError = undefined;
          e.jitter = Math.random() * JITTER;
          if (changed) {
            log.info("Fetched list", {
              url,
              digest: outcome.meta.digest,
              attempts: outcome.attempts,
            });
          }
          firstRound.mark(url, null);
          return;
        }
        e.known = {
          ...(outcome.meta ? { meta: outcome.meta } : {}),
          error: outcome.error,
        };
        e.failedAt = opts.now().getTime();
        tell({ url, ok: false, error: outcome.error });
        if (e.loggedError !== outcome.error) {
          e.loggedError = outcome.error;
          log.warn(
            outcome.meta
              ? "Cannot fetch list; serving the last good copy"
              : "Cannot fetch list",
            { url, error: outcome.error, attempts: outcome.attempts },
          );
        }
        firstRound.mark(url, outcome.error);
      }),
    );
  }

  /** Starts loads and fetches; returns the earliest time something becomes due. */
  function startDueWork(now: number): number {
    const wanted = collectWanted();
    firstRound.track(wanted);
    if (sweep.isDue(now)) track(sweep.sweep(wanted.keys(), now));
    for (const [url, e] of urls) {
      if (!wanted.has(url) && !e.busy) {
        settleWaiters(e, {
          url,
          ok: false,
          error: "no longer an enabled source of the list",
        });
        urls.delete(url);
      }
    }
    let next = Infinity;
    for (const [url, w] of wanted) {
      let e = urls.get(url);
      if (!e) urls.set(url, e = newEntry());
      if (e.busy) continue;
      if (e.known === undefined) {
        load(url, e);
        continue;
      }
      const due = dueAt(e, w.intervalMs);
      const meta = e.known.meta;
      const uncounted = meta !== undefined && e.failedAt === undefined &&
        [...w.formats].some((f) => meta.counts[f] === undefined);
      if (due <= now || uncounted || e.forced) {
        fetchUrl(url, e, w, due <= now || e.forced);
      } else {
        if (meta) firstRound.mark(url, null);
        next = Math.min(next, due);
      }
    }
    return next;
  }

  async function writeStatuses(now: Date): Promise<boolean> {
    let failed = false;
    inline.beginPass();
    for (const m of [...mirror.values()]) {
      if (abort.signal.aborted) return true;
      const key = formatKey(keyOf(m.object));
      const list = written.latest(key, m.object);
      const status = blockListStatus(list, {
        url: (url) => urls.get(url)?.known,
        inline: (text, format) => inline.count(text, format),
      }, now);
      if (status === undefined || jsonEqual(list.status, status)) continue;
      try {
        written.set(key, await opts.store.updateStatus({ ...list, status }));
        writeFailures.delete(key);
      } catch (err) {
        if (err instanceof NotFoundError) continue; // deleted meanwhile
        failed = true;
        const message = err instanceof Error ? err.message : String(err);
        if (writeFailures.get(key) === message) continue;
        writeFailures.set(key, message);
        log.warn(`Cannot write the status of ${key}`, { error: err });
      }
    }
    inline.endPass();
    return failed;
  }

  async function pass(): Promise<void> {
    dirty = false;
    const now = opts.now();
    const next = startDueWork(now.getTime());
    // Judged before the writes: an answer that arrives while they run is not
    // in this pass's statuses, and the round must end with them written.
    const roundComplete = firstRound.complete();
    const failed = await writeStatuses(now);
    if (abort.signal.aborted) return;
    if (roundComplete) firstRound.finish(false);
    const sleep = failed ? STATUS_RETRY_MS : next - now.getTime();
    if (wake !== undefined) clearTimeout(wake);
    wake = Number.isFinite(sleep)
      ? setTimeout(() => {
        wake = undefined;
        schedule(0);
      }, Math.min(opts.maxSleepMs, Math.max(0, sleep)))
      : undefined;
  }

  function refresh(
    key: ObjectKey,
  ): Promise<Exclude<ListRefresh, { state: "notLeader" }>> {
    const held = abort.signal.aborted ? undefined : mirror.get(formatKey(key));
    if (held === undefined) return Promise.resolve({ state: "unknown" });
    const sources = new Set<string>();
    for (const s of held.object.spec?.sources ?? []) {
      if (s.url !== undefined && s.enabled) sources.add(s.url);
    }
    const fetched = [...sources].map((url) =>
      new Promise<RefreshedSource>((resolve) => {
        let e = urls.get(url);
        if (!e) urls.set(url, e = newEntry());
        e.forced = true;
        e.waiters.push(resolve);
      })
    );
    schedule(0);
    return Promise.all(fetched).then((s) => ({ state: "fetched", sources: s }));
  }

  mirror.start();
  return {
    refresh,
    async stop() {
      abort.abort();
      for (const t of [timer, wake]) if (t !== undefined) clearTimeout(t);
      timer = wake = undefined;
      await mirror.stop();
      await running;
      while (tasks.size > 0) await Promise.allSettled([...tasks]);
      for (const [url, e] of urls) {
        settleWaiters(e, { url, ok: false, error: "the list fetcher stopped" });
      }
      firstRound.finish(true);
    },
  };
}
