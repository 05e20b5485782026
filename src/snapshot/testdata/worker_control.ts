/**
 * Steers the real compile workers in tests: the jobs of chosen lists (or
 * the list fetcher's count jobs, as "count") can be
 * held back (posted only when the test releases them, so "a compile still
 * running" is a state, not a race) or broken (posted as `null`, so the real
 * compile_worker.ts throws and the Worker fails, as a bug or a stack
 * overflow would). Installs a Worker subclass as globalThis.Worker;
 * `restore()` (or `using`) puts the real one back.
 */

interface Posted {
  worker: Worker;
  message: unknown;
}

/**
 * The key jobs are held and broken by: a compile job's list key
 * ("namespace/name"), or "count" for the list fetcher's count jobs.
 */
function jobKey(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  if ("count" in message) return "count";
  const meta = (message as { meta?: { key?: unknown } }).meta;
  return typeof meta?.key === "string" ? meta.key : undefined;
}

export class WorkerControl {
  /** Workers created, and terminated, since install. */
  created = 0;
  terminated = 0;
  /** Every job posted (held ones too), by key (see jobKey). */
  readonly jobs: string[] = [];
  /** Every message posted to a worker (held ones too). */
  readonly messages: unknown[] = [];
  #hold = new Set<string>();
  #held = new Map<string, Posted[]>();
  #broken = new Map<string, number>();
  #waiters: (() => void)[] = [];
  /** release() is posting: held jobs are not counted or held again. */
  #releasing = false;
  #real = globalThis.Worker;

  constructor() {
    const created = () => this.created++;
    const terminated = () => this.terminated++;
    const intercept = (worker: Worker, message: unknown) =>
      this.#intercept(worker, message);
    globalThis.Worker = class extends this.#real {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        created();
      }
      override postMessage(message: unknown, ...rest: unknown[]): void {
        const posted = intercept(this, message);
        if (!posted.send) return;
        // deno-lint-ignore no-explicit-any -- the overloads of postMessage
        (super.postMessage as any)(posted.message, ...rest);
      }
      override terminate(): void {
        terminated();
        super.terminate();
      }
    } as typeof Worker;
  }

  /** What to do with a message posted to `worker`: send it (maybe broken), or hold it. */
  #intercept(
    worker: Worker,
    message: unknown,
  ): { send: boolean; message: unknown } {
    if (!this.#releasing) this.messages.push(message);
    const key = jobKey(message);
    if (key === undefined) return { send: true, message };
    if (this.#releasing) return this.#maybeBroken(key, message);
    this.#posted(key);
    if (this.#hold.has(key)) {
      const held = this.#held.get(key) ?? [];
      held.push({ worker, message });
      this.#held.set(key, held);
      return { send: false, message };
    }
    return this.#maybeBroken(key, message);
  }

  #maybeBroken(key: string, message: unknown) {
    const breaks = this.#broken.get(key) ?? 0;
    if (breaks === 0) return { send: true, message };
    this.#broken.set(key, breaks - 1);
    return { send: true, message: null };
  }

  /** Holds the jobs of `key` from now on, until release(). */
  hold(key: string): void {
    this.#hold.add(key);
  }

  /** Posts the held jobs of `key` (to their workers, if still alive). */
  release(key: string): void {
    this.#hold.delete(key);
    this.#releasing = true;
    try {
      for (const { worker, message } of this.#held.get(key) ?? []) {
        worker.postMessage(message);
      }
    } finally {
      this.#releasing = false;
    }
    this.#held.delete(key);
  }

  /** Jobs of `key` held now. */
  heldCount(key: string): number {
    return this.#held.get(key)?.length ?? 0;
  }

  /** Breaks the next `times` jobs of `key`: their worker crashes. */
  breakNext(key: string, times = 1): void {
    this.#broken.set(key, times);
  }

  /** Resolves once `n` jobs of `key` have been posted in all. */
  async posted(key: string, n: number): Promise<void> {
    while (this.jobs.filter((k) => k === key).length < n) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #posted(key: string): void {
    this.jobs.push(key);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  restore(): void {
    globalThis.Worker = this.#real;
  }

  [Symbol.dispose](): void {
    this.restore();
  }
}
