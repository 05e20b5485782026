/**
 * The Workers that run compile_worker.ts jobs (list compiles, rule counts),
 * so lists of millions of rules never stall the main thread. A Worker runs
 * one job at a time; a job can be abandoned (its Worker is terminated at
 * once, whatever it is doing), and a Worker that crashes is never used
 * again. A job with no reply within `jobTimeoutMs` counts as a crash (its
 * Worker is terminated): a compile that hangs would otherwise hold its
 * lane, and with `initStrategy: blocking` the first snapshot, for ever.
 * Idle Workers are kept for the next job, up to `keepIdle`.
 */

const WORKER_URL = new URL("./compile_worker.ts", import.meta.url);

/**
 * Longest a job may run. 3.26 million rules (a 64 MiB list) compile in
 * ~11 s on a 2-core VM: ten minutes is room for a slow machine, not a hang.
 */
export const JOB_TIMEOUT_MS = 10 * 60_000;

/** How one run ended: the Worker's reply, or why there is none. */
export interface RunCallbacks<R> {
  onReply(reply: R): void;
  /** The Worker failed (an uncaught error, a module that did not load). */
  onCrash(message: string): void;
}

/** A job in a Worker; `cancel()` terminates the Worker (no callback runs). */
export interface Run {
  cancel(): void;
}

export class CompileWorkers {
  #idle: Worker[] = [];
  /** Busy Workers, with the timer that ends a job that hangs. */
  #busy = new Map<Worker, ReturnType<typeof setTimeout>>();
  #closed = false;
  readonly #url: URL;
  readonly #keepIdle: number;
  readonly #jobTimeoutMs: number;

  constructor(
    opts: { url?: URL; keepIdle?: number; jobTimeoutMs?: number } = {},
  ) {
    this.#url = opts.url ?? WORKER_URL;
    this.#keepIdle = opts.keepIdle ?? 1;
    this.#jobTimeoutMs = opts.jobTimeoutMs ?? JOB_TIMEOUT_MS;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#busy.size;
  }

  /** Posts `job` to an idle Worker, or a new one. */
  start<R>(job: unknown, callbacks: RunCallbacks<R>): Run {
    if (this.#closed) throw new Error("the compile workers are closed");
    const worker = this.#idle.pop() ??
      new Worker(this.#url, { type: "module" });
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      finish(false);
      const ms = this.#jobTimeoutMs;
      callbacks.onCrash(
        `no answer within ${ms < 10_000 ? `${ms} ms` : `${ms / 1000} s`}`,
      );
    }, this.#jobTimeoutMs);
    this.#busy.set(worker, timer);
    const finish = (keep: boolean) => {
      done = true;
      clearTimeout(timer);
      worker.onmessage = null;
      worker.onerror = null;
      this.#busy.delete(worker);
      if (keep && !this.#closed && this.#idle.length < this.#keepIdle) {
        this.#idle.push(worker);
      } else {
        worker.terminate();
      }
    };
    worker.onmessage = (event: MessageEvent<R>) => {
      if (done) return;
      finish(true);
      callbacks.onReply(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      // A crashed job must not take the server down.
      event.preventDefault();
      if (done) return;
      finish(false);
      callbacks.onCrash(event.message || "the worker stopped");
    };
    worker.postMessage(job);
    return {
      cancel: () => {
        if (!done) finish(false);
      },
    };
  }

  /** Terminates every Worker; jobs in flight are dropped without a callback. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#busy.values()) clearTimeout(timer);
    for (const worker of [...this.#idle, ...this.#busy.keys()]) {
      worker.terminate();
    }
    this.#idle = [];
    this.#busy.clear();
  }
}

/**
 * Runs one job in a Worker of its own and ends the Worker. Rejects when the
 * Worker crashes, or with `signal`'s reason when it is aborted first.
 */
export function runInWorker<R>(job: unknown, signal?: AbortSignal): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const workers = new CompileWorkers({ keepIdle: 0 });
    const onAbort = () => {
      workers.close();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const end = () => {
      signal?.removeEventListener("abort", onAbort);
      workers.close();
    };
    workers.start<R>(job, {
      onReply(reply) {
        end();
        resolve(reply);
      },
      onCrash(message) {
        end();
        reject(new Error(message));
      },
    });
  });
}
