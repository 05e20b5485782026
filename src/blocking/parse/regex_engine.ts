/**
 * Regex rules run on names a client chooses, and JavaScript's engine
 * backtracks: `^(a|a)+$` against 30 letters and a `!` holds a thread for
 * seconds. No syntactic check tells every such expression apart (an audit
 * got three past ours), so kudurru leaves it to V8: started with
 * REGEX_V8_FLAGS, an expression that backtracks more than a thousand times
 * on one name is run again by V8's linear-time engine (tens of µs at
 * worst), and `new RegExp(source, "l")` says whether that engine can run an
 * expression at all (not with backreferences or lookaheads, which Pi-hole's
 * and AdGuard Home's engines lack too). Without the flags, regex rules are
 * refused rather than run unprotected.
 */

/**
 * The V8 flags every kudurru process is started with (the deno tasks, the
 * compiled binary, the tests).
 */
export const REGEX_V8_FLAGS = [
  "--enable-experimental-regexp-engine",
  "--enable-experimental-regexp-engine-on-excessive-backtracks",
  "--regexp-backtracks-before-fallback=1000",
].join(",");

let linearEngine: boolean | undefined;

/** Whether this process runs with REGEX_V8_FLAGS (the `l` flag exists). */
export function linearEngineAvailable(): boolean {
  if (linearEngine === undefined) {
    try {
      // The `l` flag exists only with the flags above; that is the test.
      // deno-lint-ignore no-invalid-regexp
      new RegExp("", "l");
      linearEngine = true;
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/**
 * Why `source` (an expression that compiles) may not run per query, or
 * null: V8 could not fall back to linear time on it, or it matches every
 * name (`||x^` read as a regex is `||x^`: empty alternatives).
 */
export function regexRuleProblem(source: string): string | null {
  if (!linearEngineAvailable()) {
    return "regular-expression rules need kudurru started with " +
      `--v8-flags=${REGEX_V8_FLAGS} (the deno tasks and the binary are)`;
  }
  try {
    new RegExp(source, "l");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return "cannot run in linear time (backreferences and lookaheads " +
      `are not supported: ${message.slice(0, 80)})`;
  }
  if (new RegExp(source).test("")) {
    return "matches the empty string, so it would match every name";
  }
  return null;
}
