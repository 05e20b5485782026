/**
 * The listener workers of one server, and what happens when one dies after
 * it started (an uncaught error in it; its answers in flight and its cache
 * are lost): another is started on the same address and port with the last
 * snapshot. A listener that keeps dying is restarted with growing pauses
 * rather than given up: one bad query must not take DNS down for good.
 */
import type { Logger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import { formatListenAddress } from "./listen_address.ts";
import type { ListenerWorker } from "./listener_worker_client.ts";
import type { WorkerRequest } from "./worker_messages.ts";

/** Restarts within RESTART_WINDOW_MS that go ahead at once. */
const QUICK_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** The longest pause before a restart of a listener that keeps dying. */
const MAX_RESTART_DELAY_MS = 30_000;

/** What a worker listens on. */
export type ListenerSpec = Extract<
  WorkerRequest,
  { type: "start" }
>["listener"];

/** The running workers, for restarts and the stop. */
export interface ListenerSet {
  workers: ListenerWorker[];
  /** The last snapshot posted: a restarted worker gets it at once. */
  snapshot: Snapshot | undefined;
  /** Lameduck was entered: a restarted worker is told at once. */
  lameduck: boolean;
  stopping: boolean;
  /** Listeners not serving ("addr/transport" → why) while they restart. */
  down: Map<string, string>;
  /** When each listener was restarted lately. */
  restarts: Map<string, number[]>;
  /** Restarts under way, which the stop waits for. */
  pending: Set<Promise<void>>;
  /** Pauses before restarts, which the stop cuts short. */
  pauses: Set<{ timer: ReturnType<typeof setTimeout>; resolve: () => void }>;
  /** Run once every worker has stopped (sockets the main thread owns). */
  afterStop: (() => void)[];
  /** The configured listener each worker serves (its certificate feed). */
  configOf: WeakMap<ListenerWorker, object>;
}

export function newListenerSet(): ListenerSet {
  return {
    workers: [],
    snapshot: undefined,
    lameduck: false,
    stopping: false,
    down: new Map(),
    restarts: new Map(),
    pending: new Set(),
    pauses: new Set(),
    afterStop: [],
    configOf: new WeakMap(),
  };
}

/**
 * The pause before a restart, given the restarts of the last minute: none
 * for the first QUICK_RESTARTS, then 1 s, 2 s, 4 s… up to 30 s.
 */
export function restartDelayMs(recentRestarts: number): number {
  if (recentRestarts < QUICK_RESTARTS) return 0;
  return Math.min(
    MAX_RESTART_DELAY_MS,
    1000 * 2 ** (recentRestarts - QUICK_RESTARTS),
  );
}

/**
 * Replaces `failed` (dead: `message` says why) by a worker `start` makes on
 * its address; the listener is `down` until then. Never rejects.
 */
export function replaceFailed(
  set: ListenerSet,
  failed: ListenerWorker,
  message: string,
  start: (listener: ListenerSpec) => Promise<ListenerWorker>,
  logger: Logger,
): void {
  if (set.stopping) return;
  const { transport, hostname, port } = failed.bound;
  const where = `${formatListenAddress({ hostname, port })}/${transport}`;
  const now = Date.now();
  const recent = (set.restarts.get(where) ?? []).filter((at) =>
    now - at < RESTART_WINDOW_MS
  );
  set.restarts.set(where, [...recent, now]);
  const delayMs = restartDelayMs(recent.length);
  set.down.set(
    where,
    delayMs === 0
      ? `restarting after an error: ${message}`
      : `restarting in ${delayMs / 1000} s after repeated errors: ${message}`,
  );
  logger.warn("Restarting the listener", { listener: where, delayMs });
  const restart = (async () => {
    await pause(set, delayMs);
    if (set.stopping) return;
    try {
      const fresh = await start({ address: hostname, port, transport });
      if (set.stopping) {
        await fresh.stop();
        return;
      }
      set.workers[set.workers.indexOf(failed)] = fresh;
      // It started with the snapshot of its start; one may have come since.
      if (set.snapshot !== undefined) fresh.post(set.snapshot);
      if (set.lameduck) fresh.enterLameduck();
      set.down.delete(where);
      logger.info("Listening for DNS", { ...fresh.bound });
    } catch (err) {
      // The port taken meanwhile, a worker that dies while starting: try
      // again, after a longer pause each time.
      const why = err instanceof Error ? err.message : String(err);
      logger.error("Cannot restart the listener", {
        listener: where,
        error: err,
      });
      replaceFailed(set, failed, `restarting failed: ${why}`, start, logger);
    }
  })();
  set.pending.add(restart);
  restart.finally(() => set.pending.delete(restart));
}

/** Waits `ms`, or less when the set stops meanwhile. */
function pause(set: ListenerSet, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const entry = {
      timer: setTimeout(() => {
        set.pauses.delete(entry);
        resolve();
      }, ms),
      resolve,
    };
    set.pauses.add(entry);
  });
}

/**
 * Stops every worker (restarts under way included), resolving to their
 * cache dumps.
 */
export async function stopListenerSet(
  set: ListenerSet,
): Promise<SerializedEntry[][]> {
  set.stopping = true;
  for (const { timer, resolve } of set.pauses) {
    clearTimeout(timer);
    resolve();
  }
  set.pauses.clear();
  await Promise.all(set.pending);
  const dumps = await Promise.all(set.workers.map((w) => w.stop()));
  for (const close of set.afterStop.splice(0)) close();
  return dumps;
}
