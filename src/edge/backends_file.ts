/**
 * `--backends-file FILE`: the kudurru nodes, one "address[:port]" per line
 * (commas work too; "#" starts a comment), re-read when it changes. A change
 * of the file is a membership change: the supervisor restarts dnsdist with
 * the new list once it settles.
 *
 * The file is polled rather than watched: Kubernetes updates a mounted
 * ConfigMap by swapping a symbolic link, and an editor may write a new file
 * and rename it; reading the text every interval sees all of these the same
 * way, for the cost of one small read.
 */
import type { Logger } from "../log/logger.ts";

/** How often the file is read. */
export const BACKENDS_POLL_MS = 2_000;

/** The addresses a backends file lists. */
export function parseBackendsFile(text: string): string[] {
  return text.split("\n")
    .map((line) => line.replace(/#.*$/, ""))
    .flatMap((line) => line.split(/[\s,]+/))
    .filter((entry) => entry !== "");
}

/**
 * Reads the file now: its list, and its text (for watchBackendsFile's
 * `initialText`, so a change between the two reads is not missed).
 *
 * @throws {Error} naming the file when it does not read or lists nothing
 */
export function readBackendsFile(
  path: string,
): { list: string[]; text: string } {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    throw new Error(
      `Cannot read the backends file "${path}": ${(error as Error).message}`,
    );
  }
  const list = parseBackendsFile(text);
  if (list.length === 0) {
    throw new Error(
      `The backends file "${path}" lists no kudurru node (one address:port per line)`,
    );
  }
  return { list, text };
}

export interface BackendsFileWatch {
  stop(): void;
}

/**
 * Calls `onChange` with the new list each time the file's text changes.
 * A file that vanishes, does not read or lists nothing is logged (once
 * until it changes again) and the last list stays. `onChange` may throw
 * (an entry that is not an address): that is logged too.
 */
export function watchBackendsFile(
  path: string,
  onChange: (list: string[]) => void,
  opts: { logger: Logger; intervalMs?: number; initialText?: string },
): BackendsFileWatch {
  let last = opts.initialText ?? safeRead(path);
  let lastProblem = "";
  const timer = setInterval(() => {
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch (error) {
      report(`Cannot read the backends file: ${(error as Error).message}`);
      return;
    }
    if (lastProblem.startsWith("Cannot read")) lastProblem = "";
    if (text === last) return;
    last = text;
    const list = parseBackendsFile(text);
    if (list.length === 0) {
      report("The backends file lists no kudurru node; keeping the last list");
      return;
    }
    lastProblem = "";
    try {
      onChange(list);
    } catch (error) {
      opts.logger.error(
        "The backends file has an entry that is not an address",
        {
          path,
          error,
        },
      );
    }
  }, opts.intervalMs ?? BACKENDS_POLL_MS);

  function report(problem: string): void {
    if (problem === lastProblem) return;
    lastProblem = problem;
    opts.logger.warn(problem, { path });
  }

  return { stop: () => clearInterval(timer) };
}

function safeRead(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}
