/**
 * Finds the literal runs every match of a regular expression must contain,
 * so the matcher can skip the expression for names that lack a 3-4
 * character piece of one (docs/design.md#blocking-engine).
 *
 * Deliberately conservative: only the top-level sequence is read. Groups,
 * classes, `.` and class escapes end a run; a quantifier that allows zero
 * repetitions removes the character it applies to; a top-level `|`, or an
 * escape we do not know for sure, means "no required literal" (the
 * expression is then scanned for every name, which is slow but never wrong).
 */

/** Escapes that stand for a set of characters or a position, not a literal. */
const CLASS_ESCAPES = "dDwWsSbBfnrtv";
const QUANTIFIER_BRACES = /^\{(\d+)(,(\d*))?\}/;

/**
 * The literal runs of `source` that any match must contain, in order; empty
 * when there is none we can be sure of.
 */
export function requiredLiterals(source: string): string[] {
  const runs: string[] = [];
  let run = "";
  // Whether the last atom was the literal character at the end of `run`.
  let lastWasLiteral = false;
  const endRun = () => {
    if (run.length > 0) runs.push(run);
    run = "";
    lastWasLiteral = false;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) return [];
      if (/[A-Za-z0-9]/.test(next)) {
        // \d, \b, \1, …: not a literal. \x41, \u0041, \cJ, \k<n>, \p{…}: we do
        // not decode them, and guessing could name a literal that is not
        // required, so give up on the whole expression.
        if (!CLASS_ESCAPES.includes(next) && !/[1-9]/.test(next)) return [];
        endRun();
        i += 2;
        continue;
      }
      run += next;
      lastWasLiteral = true;
      i += 2;
      continue;
    }
    if (c === "|") return [];
    if (c === "(") {
      const close = skipGroup(source, i);
      if (close < 0) return [];
      endRun();
      i = close + 1;
      continue;
    }
    if (c === ")") return [];
    if (c === "[") {
      const close = skipClass(source, i);
      if (close < 0) return [];
      endRun();
      i = close + 1;
      continue;
    }
    if (c === "." || c === "^" || c === "$") {
      endRun();
      i++;
      continue;
    }
    const quantifier = readQuantifier(source, i);
    if (quantifier !== null) {
      if (quantifier.min === 0 && lastWasLiteral) run = run.slice(0, -1);
      // Even with min ≥ 1 the repeated character may be followed by more of
      // itself, so the run cannot continue past it.
      endRun();
      i = quantifier.end;
      if (source[i] === "?") i++; // lazy
      continue;
    }
    run += c;
    lastWasLiteral = true;
    i++;
  }
  endRun();
  return runs;
}

/** A quantifier starting at `i`: its minimum and where it ends, or null. */
function readQuantifier(
  source: string,
  i: number,
): { min: number; end: number } | null {
  const c = source[i];
  if (c === "*" || c === "?") return { min: 0, end: i + 1 };
  if (c === "+") return { min: 1, end: i + 1 };
  if (c !== "{") return null;
  // Without the u flag a `{` that is not a quantifier is a literal brace.
  const m = QUANTIFIER_BRACES.exec(source.slice(i, i + 24));
  if (m === null) return null;
  return { min: Number(m[1]), end: i + m[0].length };
}

/** The index of the `)` closing the group at `open`, or -1. */
function skipGroup(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      const close = skipClass(source, i);
      if (close < 0) return -1;
      i = close;
    } else if (c === "(") {
      depth++;
    } else if (c === ")") {
      if (--depth === 0) return i;
    }
  }
  return -1;
}

/** The index of the `]` closing the class at `open`, or -1. */
function skipClass(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "]") return i;
  }
  return -1;
}

/** Packs `length` (3 or 4) characters of `text` from `start` into an int, first char high. */
export function packKey(text: string, start: number, length: number): number {
  let key = 0;
  for (let k = 0; k < length; k++) {
    key = (key << 8) | (text.charCodeAt(start + k) & 0xff);
  }
  return key;
}

/**
 * Picks the index key of an expression: a 4-character piece of one of its
 * required runs (3 when no run is that long), choosing the piece whose
 * bucket is least used so far, so one popular piece does not collect every
 * expression. Null when no run has 3 characters.
 */
export function chooseKey(
  runs: string[],
  bucketLoad: Map<number, number>,
): { key: number; length: number } | null {
  const length = runs.some((r) => r.length >= 4)
    ? 4
    : runs.some((r) => r.length >= 3)
    ? 3
    : 0;
  if (length === 0) return null;
  let best: { key: number; length: number } | null = null;
  let bestLoad = Infinity;
  for (const run of runs) {
    for (let start = 0; start + length <= run.length; start++) {
      const key = packKey(run, start, length);
      const load = bucketLoad.get(key * 8 + length) ?? 0;
      if (load < bestLoad) {
        best = { key, length };
        bestLoad = load;
      }
    }
  }
  return best;
}
