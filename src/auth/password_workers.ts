/**
 * The Worker threads that hash and verify passwords (password_worker.ts),
 * so Argon2id (tens of milliseconds of CPU each) never blocks the main
 * thread, which serves the HTTP API and writes the query log, and the
 * hashes password.ts lets run at once really run at once.
 *
 * A small pool: at most `size` Workers, each hashing one password at a
 * time, started at the first job that finds none idle and kept for the
 * next ones. A Worker keeps the process alive only while it hashes: idle,
 * it is unref'd (node:worker_threads; Deno's web Worker has no unref), so
 * a CLI command or a test ends as soon as its own work is done. After
 * `idleMs` without a job it is terminated, which gives back its memory
 * (19 MiB of Argon2 blocks and an isolate): the Worker keeps that time
 * and says "idle", and the pool terminates it unless a job went to it
 * meanwhile. (A timer on the main thread would outlive the call that
 * armed it, which Deno's test sanitizer reports in every test that hashes
 * a password.)
 *
 * A Worker that crashes, exits or does not answer within `jobTimeoutMs`
 * is terminated and dropped: its job fails at once with a
 * PasswordWorkerError and the next job starts a new Worker. No job waits
 * for a Worker that is gone.
 */
import { Worker } from "node:worker_threads";

const WORKER_URL = new URL("./password_worker.ts", import.meta.url);

/** An idle Worker is terminated after this long without a job. */
export const IDLE_MS = 30_000;

/**
 * Longest one job may take: past it the Worker counts as hung. The dearest
 * hash password.ts lets through (64 MiB, 10 passes, lanes computed one
 * after another) takes about half a second on a 2-core VM (30 ms for the
 * usual one): a minute is room for a slow machine, not a hang.
 */
export const JOB_TIMEOUT_MS = 60_000;

/** What the main thread asks of a Worker. */
export type PasswordJob =
  | { op: "hash"; password: string }
  | { op: "verify"; password: string; encoded: string };

/** A job as posted, with the id its reply carries. */
export type PasswordWorkerRequest = PasswordJob & { id: number };

/** A Worker's answer to one request. */
export type PasswordWorkerReply =
  | { id: number; ok: true; value: string | boolean }
  | { id: number; ok: false; message: string };

/** What a Worker posts after `idleMs` without a request. */
export interface PasswordWorkerIdle {
  idle: true;
}

/** What a Worker is started with (its `workerData`). */
export interface PasswordWorkerData {
  idleMs: number;
}

/** What each kind of job resolves to. */
interface JobResults {
  hash: string;
  verify: boolean;
}

/**
 * A password job failed in or because of its Worker (a crash, an exit, no
 * answer, a Worker that could not start), or the pool was closed under it.
 * The API answers 500; the next job gets a new Worker.
 */
export class PasswordWorkerError extends Error {
  override readonly name = "PasswordWorkerError";
}

interface Queued {
  job: PasswordJob;
  resolve(value: string | boolean): void;
  reject(error: Error): void;
}

type Timer = ReturnType<typeof setTimeout>;

interface Slot {
  readonly worker: Worker;
  /** The job it runs, with its id and the timer that ends a hang. */
  job: (Queued & { id: number; timer: Timer }) | undefined;
  gone: boolean;
}

export interface PasswordWorkersOptions {
  /** Workers at most (password.ts: the semaphore's running limit). */
  size: number;
  /** The Worker module (tests use others). */
  url?: URL;
  /** @default IDLE_MS */
  idleMs?: number;
  /** @default JOB_TIMEOUT_MS */
  jobTimeoutMs?: number;
}

/** A pool of password Workers; see the module's description. */
export class PasswordWorkers {
  readonly #size: number;
  readonly #url: URL;
  readonly #idleMs: number;
  readonly #jobTimeoutMs: number;
  #slots: Slot[] = [];
  /** Jobs waiting for a Worker (password.ts's semaphore keeps this short). */
  #queue: Queued[] = [];
  #nextId = 1;

  constructor(opts: PasswordWorkersOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) {
      throw new RangeError(
        `Cannot create a pool of ${opts.size} password workers: give a whole number of at least 1`,
      );
    }
    this.#size = opts.size;
    this.#url = opts.url ?? WORKER_URL;
    this.#idleMs = opts.idleMs ?? IDLE_MS;
    this.#jobTimeoutMs = opts.jobTimeoutMs ?? JOB_TIMEOUT_MS;
  }

  /** Workers alive now, busy or idle. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Jobs running in a Worker now. */
  get running(): number {
    return this.#slots.filter((s) => s.job !== undefined).length;
  }

  /**
   * Runs `job` in an idle Worker, a new one (up to `size`), or the first to
   * come free.
   *
   * @throws {PasswordWorkerError} when its Worker fails, or the pool is closed first
   * @throws {Error} what the Worker reported (a hash it cannot verify)
   */
  run<K extends PasswordJob["op"]>(
    job: Extract<PasswordJob, { op: K }>,
  ): Promise<JobResults[K]> {
    return new Promise<JobResults[K]>((resolve, reject) => {
      this.#queue.push({
        job,
        resolve: resolve as (value: string | boolean) => void,
        reject,
      });
      this.#dispatch();
    });
  }

  /**
   * Terminates every Worker now; jobs running or queued fail with a
   * PasswordWorkerError. The pool stays usable: a later job starts a new
   * Worker.
   */
  close(): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const slot of [...this.#slots]) {
      this.#retire(slot, "the password workers were closed", false);
    }
    for (const q of queued) {
      q.reject(
        new PasswordWorkerError(
          `Cannot ${q.job.op} the password: the password workers were closed`,
        ),
      );
    }
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === undefined);
      if (slot === undefined) {
        if (this.#slots.length >= this.#size) return;
        try {
          slot = this.#spawn();
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          const q = this.#queue.shift()!;
          q.reject(
            new PasswordWorkerError(
              `Cannot ${q.job.op} the password: cannot start a password worker: ${why}`,
              { cause: err },
            ),
          );
          continue;
        }
      }
      this.#assign(slot, this.#queue.shift()!);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(this.#url, {
      name: "kudurru-password",
      workerData: { idleMs: this.#idleMs } satisfies PasswordWorkerData,
    });
    const slot: Slot = { worker, job: undefined, gone: false };
    this.#slots.push(slot);
    worker.on(
      "message",
      (message: PasswordWorkerReply | PasswordWorkerIdle) => {
        if (typeof message !== "object" || message === null) return;
        if ("idle" in message) {
          // Unless a job was posted to it since it said so.
          if (slot.job === undefined) this.#retire(slot, "idle", false);
        } else this.#reply(slot, message);
      },
    );
    // An uncaught error in the Worker; it ends (and "exit" follows).
    worker.on("error", (err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      this.#retire(slot, `its worker crashed (${why})`);
    });
    worker.on("exit", (code: number) => {
      this.#retire(slot, `its worker stopped (exit code ${code})`);
    });
    return slot;
  }

  #assign(slot: Slot, queued: Queued): void {
    const id = this.#nextId++;
    const timer = setTimeout(() => {
      const ms = this.#jobTimeoutMs;
      this.#retire(
        slot,
        `no answer from its worker within ${
          ms < 10_000 ? `${ms} ms` : `${ms / 1000} s`
        }`,
      );
    }, this.#jobTimeoutMs);
    slot.job = { ...queued, id, timer };
    // Busy: the process waits for the answer.
    slot.worker.ref();
    slot.worker.postMessage(
      { ...queued.job, id } satisfies PasswordWorkerRequest,
    );
  }

  #reply(slot: Slot, reply: PasswordWorkerReply): void {
    const job = slot.job;
    if (slot.gone || job === undefined || reply?.id !== job.id) return;
    clearTimeout(job.timer);
    slot.job = undefined;
    // Idle: it must not keep the process alive.
    slot.worker.unref();
    // The Worker's message says what failed ("Cannot verify the password: …").
    if (reply.ok) job.resolve(reply.value);
    else job.reject(new Error(reply.message));
    this.#dispatch();
  }

  /**
   * Drops `slot` and terminates its Worker; its job, if any, fails with
   * `why`. Then queued jobs go to the Workers left or to new ones.
   */
  #retire(slot: Slot, why: string, redispatch = true): void {
    if (slot.gone) return;
    slot.gone = true;
    this.#slots = this.#slots.filter((s) => s !== slot);
    const job = slot.job;
    slot.job = undefined;
    if (job !== undefined) clearTimeout(job.timer);
    slot.worker.removeAllListeners("message");
    // A late "error" must find a listener, or it would be thrown.
    slot.worker.removeAllListeners("error").on("error", () => {});
    slot.worker.removeAllListeners("exit");
    slot.worker.terminate();
    job?.reject(
      new PasswordWorkerError(
        `Cannot ${job.job.op} the password: ${why}; the next request starts a new worker`,
      ),
    );
    if (redispatch) this.#dispatch();
  }
}
