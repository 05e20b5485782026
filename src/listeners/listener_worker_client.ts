/**
 * The main thread's side of one listener Worker: start it, wait for `ready`
 * or `bind-error`, post snapshots, stop it gracefully and terminate it.
 */
import {
  isPostedQueryEvents,
  type PackedQueryEvents,
  type PostedQueryEvents,
} from "../pipeline/query_event_pack.ts";
import { QueryEventReceiver } from "../pipeline/query_event_receiver.ts";
import type { Transport } from "../pipeline/handler.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import type { Logger } from "../log/logger.ts";
import { describeBindError, ListenerError } from "./listener_error.ts";
import { formatListenAddress } from "./listen_address.ts";
import { SnapshotSender } from "./snapshot_post.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import type { FlushOptions } from "../pipeline/flushed_names.ts";
import type { ExplainedQuestion } from "../pipeline/data_plane.ts";
import type { Explanation } from "../pipeline/explanation.ts";
import type {
  CertificatePair,
  CounterDeltas,
  WorkerReply,
  WorkerRequest,
} from "./worker_messages.ts";

/** What onEvents gets for a batch that could not be read. */
const NO_EVENTS: PackedQueryEvents = {
  count: 0,
  strings: [],
  times: new Float64Array(0),
  ints: new Int32Array(0),
};

/** Where a listener is actually bound. */
export interface BoundAddress {
  transport: Transport;
  /** Host without brackets. */
  hostname: string;
  port: number;
  /**
   * Which of the sockets that share this address and transport
   * (`listeners.sockets` above 1), from 0; absent when there is one. A
   * worker started in place of one that died has the same.
   */
  socket?: number;
}

/** A started listener Worker. */
export interface ListenerWorker {
  readonly bound: BoundAddress;
  post(snapshot: Snapshot): void;
  /**
   * Resolves once the worker answers from the snapshot of `version` or a
   * later one (or has stopped, and answers nothing).
   */
  applied(version: number): Promise<void>;
  /** Tells the worker the server is in lameduck (see WorkerRequest). */
  enterLameduck(): void;
  /** Posts cache entries from a dump for the worker to take. */
  postCache(entries: SerializedEntry[]): void;
  /** Posts entries another worker shared (see CacheStage.importShared). */
  postSharedCache(entries: SerializedEntry[]): void;
  /** A TLS listener's new certificate, for the connections from now on. */
  postCertificate(pair: CertificatePair): void;
  /**
   * Drops the worker's cached answers (all, or those for `name`, with
   * `subtree` for the names below it too); resolves to how many went, 0
   * when the worker has no cache or has stopped.
   */
  flushCache(name?: string, opts?: FlushOptions): Promise<number>;
  /**
   * How the worker's data plane would answer `question` from `client`
   * (DataPlane.explain); undefined when it cannot say (no plane that
   * explains, or the worker stopped).
   */
  explain(
    question: ExplainedQuestion,
    client: string,
  ): Promise<Explanation | undefined>;
  /**
   * Graceful stop, then terminate; never rejects. Resolves to the worker's
   * cache dump: the one taken as the stop began when the worker did not
   * stop in time, empty when it has no cache or never posted one.
   */
  stop(): Promise<SerializedEntry[]>;
}

export interface ListenerWorkerOptions {
  workerUrl: string;
  start: Extract<WorkerRequest, { type: "start" }>;
  /** The address as configured, for error messages. */
  configured: string;
  /** `BoundAddress.socket`. */
  socket?: number;
  logger: Logger;
  stopTimeoutMs: number;
  onCounters?: (deltas: CounterDeltas, from: BoundAddress) => void;
  /**
   * The worker's query events (packed; see query_event_pack.ts), and how
   * many it dropped. Batches of the wrong shape are ignored (logged once),
   * never passed on; a batch that cannot be read because an earlier one
   * went missing counts as dropped. Call the batch's `release` once done
   * with its arrays: the worker fills them again (else it allocates).
   */
  onEvents?: (events: PackedQueryEvents, dropped: number) => void;
  /** Cache entries the worker stored from cut answers, for the other workers. */
  onCacheShare?: (entries: SerializedEntry[]) => void;
  /** A NOTIFY the worker took for a secondary zone. */
  onNotify?: (zone: string, from: string) => void;
  /**
   * A snapshot to answer from from the first query on (a restarted worker
   * gets the last one): the worker takes it before it binds its socket.
   */
  snapshot?: Snapshot;
  /**
   * The worker died after it was ready (an uncaught error in it): its
   * socket is closed and the handle is terminated. Not called for a worker
   * that fails to start: the returned promise rejects then.
   */
  onFailure?: (message: string) => void;
}

/** Starts one Worker and resolves once its socket is bound. */
export function startListenerWorker(
  opts: ListenerWorkerOptions,
): Promise<ListenerWorker> {
  const { transport } = opts.start.listener;
  let worker: Worker;
  try {
    worker = new Worker(opts.workerUrl, { type: "module" });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return Promise.reject(
      new ListenerError(
        `Cannot start the listener worker for ${opts.configured}/${transport}: ${e.message}`,
        e.name,
        { cause: err },
      ),
    );
  }
  const ready = Promise.withResolvers<ListenerWorker>();
  const stopped = Promise.withResolvers<SerializedEntry[]>();
  let bound: BoundAddress | null = null;
  let terminated = false;
  /** Flushes waiting for the worker's answer, by request id (ids shared with explains). */
  const flushes = new Map<number, (removed: number) => void>();
  let nextRequestId = 1;
  /** Explanations waiting for the worker's answer, by request id. */
  const explains = new Map<number, (e: Explanation | undefined) => void>();
  let malformedEventBatches = 0;
  const eventReceiver = new QueryEventReceiver();
  /** A restart of the worker's string table was asked for and not seen yet. */
  let tableRestartAsked = false;
  const snapshots = new SnapshotSender();
  /** The dump the worker posted as its stop began (`cache-dump`). */
  let earlyDump: SerializedEntry[] | undefined;
  let earlyDumpPosted = false;
  /** The newest snapshot version the worker said it answers from. */
  let appliedVersion = 0;
  const appliedWaiters = new Set<
    { version: number; resolve: () => void; promise: Promise<void> }
  >();

  const terminate = (cache?: SerializedEntry[]) => {
    if (terminated) return;
    terminated = true;
    worker.terminate();
    for (const resolve of flushes.values()) resolve(0);
    flushes.clear();
    for (const resolve of explains.values()) resolve(undefined);
    explains.clear();
    for (const waiter of appliedWaiters) waiter.resolve();
    appliedWaiters.clear();
    stopped.resolve(cache ?? earlyDump ?? []);
  };

  const handle: ListenerWorker = {
    get bound() {
      return bound!;
    },
    applied(version) {
      if (terminated || appliedVersion >= version) return Promise.resolve();
      const waiter = { version, ...Promise.withResolvers<void>() };
      appliedWaiters.add(waiter);
      return waiter.promise;
    },
    post(snapshot) {
      if (terminated) return;
      worker.postMessage(
        {
          type: "snapshot",
          snapshot: snapshots.post(snapshot),
        } satisfies WorkerRequest,
      );
    },
    enterLameduck() {
      if (!terminated) {
        worker.postMessage({ type: "lameduck" } satisfies WorkerRequest);
      }
    },
    postCache(entries) {
      if (!terminated) {
        worker.postMessage({ type: "cache", entries } satisfies WorkerRequest);
      }
    },
    postSharedCache(entries) {
      if (!terminated) {
        worker.postMessage(
          { type: "shared-cache", entries } satisfies WorkerRequest,
        );
      }
    },
    postCertificate(pair) {
      if (!terminated) {
        worker.postMessage(
          { type: "certificate", pair } satisfies WorkerRequest,
        );
      }
    },
    flushCache(name, opts) {
      if (terminated) return Promise.resolve(0);
      const id = nextRequestId++;
      const done = new Promise<number>((resolve) => flushes.set(id, resolve));
      worker.postMessage(
        {
          type: "flush-cache",
          id,
          ...(name !== undefined && { name }),
          ...(opts?.subtree === true && { subtree: true }),
        } satisfies WorkerRequest,
      );
      return done;
    },
    explain(question, client) {
      if (terminated) return Promise.resolve(undefined);
      const id = nextRequestId++;
      const done = new Promise<Explanation | undefined>((resolve) =>
        explains.set(id, resolve)
      );
      worker.postMessage(
        { type: "explain", id, question, client } satisfies WorkerRequest,
      );
      return done;
    },
    async stop() {
      if (terminated) return [];
      worker.postMessage(
        {
          type: "stop",
          answerWithinMs: answerWithinMs(opts.stopTimeoutMs),
        } satisfies WorkerRequest,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          opts.logger.warn("Listener did not stop in time; terminating it", {
            address: opts.configured,
            transport,
          });
          if (!earlyDumpPosted) {
            opts.logger.warn(
              "Listener cache dump lost: the worker never posted it; its cache starts empty next time",
              { address: opts.configured, transport },
            );
          }
          resolve(undefined);
        }, opts.stopTimeoutMs);
      });
      const cache = await Promise.race([stopped.promise, timeout]);
      clearTimeout(timer);
      terminate();
      return cache ?? earlyDump ?? [];
    },
  };

  /**
   * Hands a batch on with its whole string table, and a release that gives
   * its arrays back to the worker, or counts it as dropped.
   */
  function receiveEvents(posted: PostedQueryEvents, droppedInWorker: number) {
    let dropped = Number.isSafeInteger(droppedInWorker) && droppedInWorker > 0
      ? droppedInWorker
      : 0;
    if (posted.stringBase === 0) tableRestartAsked = false;
    const batch = eventReceiver.receive(posted);
    if (batch !== undefined) {
      let released = false;
      batch.release = () => {
        if (released) return;
        released = true;
        giveBackEventBuffers(batch);
      };
      return opts.onEvents?.(batch, dropped);
    }
    giveBackEventBuffers(posted);
    dropped += posted.count;
    opts.onEvents?.(NO_EVENTS, dropped);
    if (!tableRestartAsked && !terminated) {
      tableRestartAsked = true;
      worker.postMessage(
        { type: "restart-event-strings" } satisfies WorkerRequest,
      );
    }
  }

  /**
   * Transfers `batch`'s arrays back to the worker, which fills them again
   * (QueryEventPacker.recycle). A stopped worker gets none: they are left
   * to the garbage collector, as are arrays that cannot be transferred.
   */
  function giveBackEventBuffers(batch: PackedQueryEvents) {
    if (terminated) return;
    const { times, ints } = batch;
    try {
      worker.postMessage(
        { type: "event-buffers", times, ints } satisfies WorkerRequest,
        [times.buffer as ArrayBuffer, ints.buffer as ArrayBuffer],
      );
    } catch {
      // Detached already, or one buffer for both: nothing to give back.
    }
  }

  worker.onmessage = (event: MessageEvent<WorkerReply>) => {
    const msg = event.data;
    switch (msg.type) {
      case "ready":
        bound = {
          transport,
          hostname: opts.start.listener.address,
          port: msg.port,
          ...(opts.socket !== undefined && { socket: opts.socket }),
        };
        ready.resolve(handle);
        return;
      case "bind-error":
        terminate();
        ready.reject(
          new ListenerError(
            describeBindError(
              opts.configured,
              transport,
              msg.code,
              msg.message,
            ),
            msg.code,
          ),
        );
        return;
      case "counters":
        if (bound) opts.onCounters?.(msg.deltas, bound);
        return;
      case "events":
        if (isPostedQueryEvents(msg.events)) {
          receiveEvents(msg.events, msg.dropped);
        } else if (malformedEventBatches++ === 0) {
          // A bug in the worker, not bad input: worth one line, not one a batch.
          opts.logger.warn("Listener worker posted malformed query events", {
            address: opts.configured,
            transport,
          });
        }
        return;
      case "cache-share":
        if (Array.isArray(msg.entries)) opts.onCacheShare?.(msg.entries);
        return;
      case "snapshot-applied":
        if (typeof msg.version === "number") {
          appliedVersion = Math.max(appliedVersion, msg.version);
          for (const waiter of [...appliedWaiters]) {
            if (waiter.version <= appliedVersion) {
              appliedWaiters.delete(waiter);
              waiter.resolve();
            }
          }
        }
        return;
      case "notified":
        if (typeof msg.zone === "string" && typeof msg.from === "string") {
          opts.onNotify?.(msg.zone, msg.from);
        }
        return;
      case "cache-flushed":
        flushes.get(msg.id)?.(msg.removed);
        flushes.delete(msg.id);
        return;
      case "explained":
        explains.get(msg.id)?.(msg.explanation);
        explains.delete(msg.id);
        return;
      case "cache-dump":
        earlyDumpPosted = true;
        if (Array.isArray(msg.cache)) earlyDump = msg.cache;
        return;
      case "stopped":
        terminate(msg.cache);
        return;
    }
  };
  worker.onerror = (event: ErrorEvent) => {
    // Handled here so a worker's crash never takes the main thread down.
    event.preventDefault();
    const where = `${
      formatListenAddress({
        hostname: opts.start.listener.address,
        port: opts.start.listener.port,
      })
    }/${transport}`;
    opts.logger.error("Listener worker failed", {
      listener: where,
      error: event.message,
    });
    const wasServing = bound !== null && !terminated;
    terminate();
    if (wasServing) opts.onFailure?.(event.message);
    ready.reject(
      new ListenerError(
        `Cannot start the listener on ${where}: ${event.message}`,
        "WorkerError",
      ),
    );
  };
  if (opts.snapshot !== undefined) handle.post(opts.snapshot);
  worker.postMessage(opts.start);
  return ready.promise;
}

/** Time a worker keeps for posting its counters and `stopped` after its deadline. */
const STOP_MARGIN_MS = 1_000;

/**
 * How long a stopping worker waits for the answers in flight before it
 * sends SERVFAIL for the rest: what is left of `stopTimeoutMs` after a
 * margin (a fifth of it, at most STOP_MARGIN_MS) for its last messages.
 */
export function answerWithinMs(stopTimeoutMs: number): number {
  return Math.max(
    0,
    stopTimeoutMs - Math.min(STOP_MARGIN_MS, stopTimeoutMs / 5),
  );
}
