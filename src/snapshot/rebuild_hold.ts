/**
 * A hold on whole-zone rebuilds while one writer makes many changes in a row.
 *
 * The objects loader writes a file's objects one at a time; a file of 1,500
 * record sets for one zone is 1,500 changes. Rebuilding the zone (snapshot
 * builder) and its statuses (zone controller) between writes costs a full
 * build each time: quadratic, minutes for a 150,000-record zone, with the
 * zone half there meanwhile. While the loader holds this, both postpone their
 * rebuild until it lets go, so the zone is built once, complete. `maxWaitMs`
 * bounds the wait: a pass that runs very long cannot starve them.
 */

/** The longest a rebuild waits for a hold by default. */
export const DEFAULT_MAX_HOLD_MS = 30_000;

export interface RebuildHoldOptions {
  /** A postponed rebuild runs after this long even if still held. @default 30000 */
  maxWaitMs?: number;
}

interface Waiter {
  run: () => void;
  timer: ReturnType<typeof setTimeout>;
}

export class RebuildHold {
  readonly maxWaitMs: number;
  #holders = 0;
  readonly #waiters = new Set<Waiter>();

  constructor(opts: RebuildHoldOptions = {}) {
    this.maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_HOLD_MS;
  }

  /** True while at least one holder has not let go. */
  get held(): boolean {
    return this.#holders > 0;
  }

  /** Holds rebuilds until the returned function is called (later calls do nothing). */
  take(): () => void {
    this.#holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holders === 0) this.#wakeAll();
    };
  }

  /**
   * Runs `run` once, on a later task: when the last holder lets go, or after
   * `maxWaitMs`, whichever comes first (at once if nothing holds). Returns a
   * function that cancels it.
   */
  whenReleased(run: () => void): () => void {
    const waiter: Waiter = {
      run,
      timer: setTimeout(
        () => this.#fire(waiter),
        this.held ? this.maxWaitMs : 0,
      ),
    };
    this.#waiters.add(waiter);
    return () => {
      clearTimeout(waiter.timer);
      this.#waiters.delete(waiter);
    };
  }

  #wakeAll(): void {
    // On a later task, not inside release(): the releasing writer's code
    // finishes first, and a rebuild that throws cannot break it.
    for (const w of this.#waiters) {
      clearTimeout(w.timer);
      w.timer = setTimeout(() => this.#fire(w), 0);
    }
  }

  #fire(waiter: Waiter): void {
    if (!this.#waiters.delete(waiter)) return;
    waiter.run();
  }
}
