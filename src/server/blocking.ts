/**
 * The blocking part of `kudurru serve`'s wiring: the leader-only list
 * fetcher, the assembler that compiles lists and resolves policies for the
 * snapshot, and the watch on the temporary disable. Kept apart from
 * serve.ts so that file stays a readable list of what starts in what order.
 */
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { HealthCheck } from "../health/health.ts";
import type { Logger } from "../log/logger.ts";
import type { Registry } from "../metrics/registry.ts";
import { createBlockListMetrics } from "../metrics/query_metrics.ts";
import type { Store } from "../store/store.ts";
import {
  type ListFetcher,
  type ListFetcherOptions,
  startListFetcher,
} from "../controller/list_fetcher.ts";
import {
  BlockingAssembler,
  type BlockingAssemblerOptions,
} from "../snapshot/blocking_assembler.ts";
import { watchBlockingState } from "../blocking/blocking_state.ts";

/** How long `blocking` and `failOnError` wait for the first downloads. */
const INITIAL_FETCH_WAIT_MS = 120_000;

/** `promise`'s value, or undefined when it takes longer than the wait. */
async function withDeadline<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), INITIAL_FETCH_WAIT_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface BlockingWiring {
  assembler: BlockingAssembler;
  /** Fetches a BlockList's sources now (the list fetcher's refresh). */
  refreshList: ListFetcher["refresh"];
  /** Stops the fetcher, the watch and the assembler. */
  stop(): Promise<void>;
}

/**
 * The "lists" readiness check: a list that failed to load, or has not
 * loaded yet, is named in the reason. With `blocking.allowDegraded: false`
 * it also costs readiness; by default the node stays ready (it answers,
 * blocking less), as the query log's check does.
 */
export function listsReadiness(
  allowDegraded: boolean,
  assembler: Pick<BlockingAssembler, "failedLists" | "loadingLists">,
): HealthCheck {
  return () => {
    const failed = assembler.failedLists();
    const loading = assembler.loadingLists();
    if (failed.length === 0 && loading.length === 0) return { ready: true };
    const reasons = [];
    if (failed.length > 0) {
      reasons.push(`block lists failed to load: ${failed.join("; ")}`);
    }
    if (loading.length > 0) {
      reasons.push(`block lists still loading: ${loading.join(", ")}`);
    }
    const why = reasons.join("; ");
    return allowDegraded
      ? { ready: true, reason: `${why} (serving without them)` }
      : { ready: false, reason: `${why} (blocking.allowDegraded is false)` };
  };
}

/** Where list bodies are kept: `blocking.listsDir`, else `<dataDir>/lists`. */
export function listsDirOf(config: Config): string {
  return config.blocking.listsDir || join(config.node.dataDir, "lists");
}

/**
 * Starts fetching, compiling and watching. Follows `blocking.initStrategy`:
 * `fast` compiles the small lists (up to 256 KiB, such as the starter
 * list) at once, returns, and compiles the larger copies on disk in the
 * background, each joining the snapshot when it is ready; `blocking` waits for the first download of every list, then
 * for every compile; `failOnError` also refuses to start when a download
 * failed. `onChange` is called whenever the blocking part of the snapshot
 * changes.
 */
export async function startBlocking(opts: {
  store: Store;
  config: Config;
  logger: Logger;
  onChange: () => void;
  /** Where kudurru_blocklist_* metrics go; none: not exposed. */
  registry?: Registry;
  /** Overrides for the fetcher's timing (tests). */
  fetcher?: Pick<ListFetcherOptions, "retryDelaysMs" | "timeoutMs">;
  /** Overrides for the assembler's timing (tests). */
  assembler?: Pick<BlockingAssemblerOptions, "debounceMs" | "compileRetryMs">;
}): Promise<BlockingWiring> {
  const { store, config } = opts;
  const logger = opts.logger.with({ component: "blocking" });
  const listsDir = listsDirOf(config);
  await Deno.mkdir(listsDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const fetcher = startListFetcher({
      ...opts.fetcher,
      store,
      listsDir,
      logger,
      defaultRefreshMs: config.blocking.refreshInterval,
    });
    stops.push(() => fetcher.stop());
    const strategy = config.blocking.initStrategy;
    if (strategy !== "fast") {
      const first = await withDeadline(fetcher.initialFetchDone);
      if (first === undefined && strategy === "failOnError") {
        throw new Error(
          `Cannot start: block lists did not load within ${
            INITIAL_FETCH_WAIT_MS / 1000
          } s (blocking.initStrategy is failOnError)`,
        );
      }
      if (first === undefined) {
        // Another node leads and fetches; its bodies arrive later.
        logger.warn(
          "Block lists did not load in time (this node may not lead); serving without waiting",
          { waitedSeconds: INITIAL_FETCH_WAIT_MS / 1000 },
        );
      } else if (first.failed.length > 0) {
        const failures = first.failed.map((f) => `${f.url}: ${f.error}`)
          .join("; ");
        if (strategy === "failOnError") {
          throw new Error(
            `Cannot start: block lists failed to load (blocking.initStrategy is failOnError): ${failures}`,
          );
        }
        logger.warn("Some block lists failed to load; serving without them", {
          failures,
        });
      }
    }

    const metrics = createBlockListMetrics(opts.registry);
    const assembler = new BlockingAssembler({
      ...opts.assembler,
      store,
      listsDir,
      settings: config.blocking,
      upstreamGroups: Object.keys(config.upstreams.groups),
      logger,
      onChange: opts.onChange,
      // fast: large lists on disk must not hold up the first answers.
      firstSnapshotWaits: strategy === "fast" ? "small" : "all",
      metrics,
    });
    metrics.readPendingFrom(() => assembler.pendingCompiles());
    assembler.start();
    stops.push(() => assembler.stop());
    await assembler.synced;

    const watching = new AbortController();
    const watch = watchBlockingState(store, {
      signal: watching.signal,
      onChange: (until) => assembler.setDisabledUntil(until),
      logger,
    });
    stops.push(async () => {
      watching.abort();
      await watch;
    });
    return {
      assembler,
      refreshList: (key) => fetcher.refresh(key),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
