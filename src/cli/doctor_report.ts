/**
 * What `kudurru doctor` prints: one line per finding (`ok`, `warn`, `fail`
 * or `skip`, the check's name, a sentence that says what to do), or the
 * same as JSON.
 */

/** How a finding reads: only `fail` makes doctor exit 1. */
export type Verdict = "ok" | "warn" | "fail" | "skip";

/** One finding of one check. */
export interface Finding {
  verdict: Verdict;
  /** The check: "config", "data directory", "port", "upstream", … */
  check: string;
  /** What was found and, unless it is fine, how to fix it. */
  message: string;
}

export const ok = (check: string, message: string): Finding => ({
  verdict: "ok",
  check,
  message,
});
export const warn = (check: string, message: string): Finding => ({
  verdict: "warn",
  check,
  message,
});
export const fail = (check: string, message: string): Finding => ({
  verdict: "fail",
  check,
  message,
});
export const skip = (check: string, message: string): Finding => ({
  verdict: "skip",
  check,
  message,
});

/** True when nothing failed (warnings and skips pass). */
export function passed(findings: readonly Finding[]): boolean {
  return findings.every((f) => f.verdict !== "fail");
}

/** The findings as aligned text lines, then a summary line. */
export function findingsText(findings: readonly Finding[]): string {
  const width = Math.max(0, ...findings.map((f) => f.check.length));
  const lines = findings.map((f) =>
    `${f.verdict.padEnd(4)}  ${f.check.padEnd(width)}  ${f.message}\n`
  );
  const count = (v: Verdict) => findings.filter((f) => f.verdict === v).length;
  return lines.join("") +
    `${count("fail")} failed, ${count("warn")} warnings, ${count("ok")} ok, ${
      count("skip")
    } skipped\n`;
}

/** The findings as one JSON document. */
export function findingsJson(findings: readonly Finding[]): string {
  return JSON.stringify({ passed: passed(findings), findings }, null, 2) +
    "\n";
}
