/**
 * Small timing helpers of the list fetcher: a counting semaphore that bounds
 * how many downloads run at once, and an abortable pause for retry backoff.
 */

/** Hands out at most `size` slots; waiters are served first come, first served. */
export class Limiter {
  #free: number;
  #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = Math.max(1, Math.floor(size));
  }

  /**
   * Resolves with a release function once a slot is free. Rejects with the
   * signal's reason if it aborts first (the slot is then never taken).
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(this.#releaser());
      };
      const onAbort = () => {
        this.#waiting = this.#waiting.filter((w) => w !== grant);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so it is never free in between.
      if (next) next();
      else this.#free++;
    };
  }
}
