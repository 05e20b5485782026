/**
 * The wait every control-plane loop uses between tries: `ms`, or less when
 * the loop's signal aborts, and no timer left behind either way (test
 * sanitizers and a prompt shutdown both depend on that).
 */

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
