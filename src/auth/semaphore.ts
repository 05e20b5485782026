/**
 * A counting semaphore with a bounded queue. Password hashing uses it: each
 * Argon2id hash holds 19 MiB and tens of milliseconds of CPU, so a burst of
 * logins must neither run all at once (memory) nor queue without end (every
 * waiter holds a request open); past the queue's bound the caller is told
 * at once and can answer 503.
 */

/** Runs at most `running` tasks at a time, with at most `waiting` queued. */
export class Semaphore {
  readonly #running: number;
  readonly #waiting: number;
  readonly #whenFull: () => Error;
  #active = 0;
  readonly #queue: Array<() => void> = [];

  /**
   * @param running tasks run at once (at least 1)
   * @param waiting tasks queued behind them (0: none)
   * @param whenFull the error thrown to a caller that finds the queue full
   */
  constructor(running: number, waiting: number, whenFull: () => Error) {
    if (!Number.isInteger(running) || running < 1) {
      throw new RangeError(
        `Cannot create a semaphore for ${running} running tasks: give a whole number of at least 1`,
      );
    }
    if (!Number.isInteger(waiting) || waiting < 0) {
      throw new RangeError(
        `Cannot create a semaphore with ${waiting} waiting tasks: give a whole number of at least 0`,
      );
    }
    this.#running = running;
    this.#waiting = waiting;
    this.#whenFull = whenFull;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks queued now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Runs `task` once a slot is free, first come first served.
   *
   * @throws the `whenFull` error, without running `task`, when the queue is full
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.#running) {
      this.#active++;
    } else if (this.#queue.length < this.#waiting) {
      // The slot is handed over by the finishing task, so #active stays counted.
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      throw this.#whenFull();
    }
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
