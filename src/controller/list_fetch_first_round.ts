/**
 * The list fetcher's first round: the URL sources present when the loop
 * first synced, and how each one's first fetch went. Reported once, when
 * every URL has an answer or the loop stops; this is what startServer waits
 * on for blocking.initStrategy "blocking" and "failOnError".
 */

/** How the first round went; `failed` lists URLs with their errors. */
export type FirstRoundReport = (
  ok: string[],
  failed: { url: string; error: string }[],
) => void;

const STOPPED = "stopped before the list was fetched";

export class FirstRound {
  /** null: fetched (or fresh on disk); a string: the error; undefined: no answer yet. */
  #results: Map<string, string | null | undefined> | undefined;
  #done = false;

  constructor(private readonly report: FirstRoundReport) {}

  /**
   * The first call fixes the set of URLs; later calls only drop URLs no
   * BlockList wants any more (a deleted list is not waited for).
   */
  track(wanted: ReadonlySet<string> | ReadonlyMap<string, unknown>): void {
    if (this.#results === undefined) {
      this.#results = new Map(
        [...wanted.keys()].map((url) => [url, undefined]),
      );
      return;
    }
    for (const url of this.#results.keys()) {
      if (!wanted.has(url)) this.#results.delete(url);
    }
  }

  /** Records the first answer for `url` (later answers are ignored). */
  mark(url: string, error: string | null): void {
    if (this.#results?.has(url) && this.#results.get(url) === undefined) {
      this.#results.set(url, error);
    }
  }

  /** True when every URL has an answer (and the round was not reported yet). */
  complete(): boolean {
    return !this.#done && this.#results !== undefined &&
      [...this.#results.values()].every((v) => v !== undefined);
  }

  /**
   * Reports the round: when `stopping`, at once, with unanswered URLs as
   * failed; otherwise only if it is complete.
   */
  finish(stopping: boolean): void {
    if (this.#done || this.#results === undefined) return;
    const results = [...this.#results];
    if (!stopping && results.some(([, v]) => v === undefined)) return;
    this.#done = true;
    const ok = results.filter(([, v]) => v === null).map(([url]) => url);
    const failed = results.filter(([, v]) => v !== null).map(([url, v]) => ({
      url,
      error: v ?? STOPPED,
    }));
    this.report(ok, failed);
  }
}
