/**
 * Regex rules ignore case, as DNS names do: `/^AD[0-9]/` is meant to match
 * ad1.example. The `i` flag cannot do it: V8's linear-time engine refuses
 * every expression with it (`new RegExp(src, "il")` throws), so the
 * protection of regex_engine.ts would be lost (`/^(a|a)+$/i` on 30 letters
 * and a `!` runs for a minute). Names reach the matcher in lowercase, so
 * instead the expression is folded: an uppercase letter becomes lowercase,
 * and a class that holds uppercase letters gains their lowercase twins
 * (`[A-F]` -> `[a-fA-F]`). On a lowercase name the folded expression,
 * without flags, matches exactly when the original with `i` would
 * (regex_case_test.ts checks this on random expressions).
 *
 * The syntax read is JavaScript's without the `u` flag (with Annex B's
 * legacy escapes), as the expressions are compiled. `(?-i:…)` keeps its
 * content as written: it asked for case to matter there.
 */

const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const TO_LOWER = 0x20;

/** What an escape at some index stands for. */
interface Escape {
  /** Index after the escape. */
  end: number;
  /** The one character it stands for; null for a set, position or backreference. */
  code: number | null;
  /**
   * How to write it when it is not folded, if not as written: `\x` and
   * `\u` without their hex digits, and `\c` before a non-letter, would
   * take a folded letter after them as part of the escape.
   */
  plain?: string;
}

interface Groups {
  captures: number;
  named: boolean;
}

/** `source` (a valid expression) rewritten to match lowercase names case-insensitively. */
export function foldCase(source: string): string {
  // Without escapes and ranges, only uppercase letters could need folding.
  if (!/[A-Z\\-]/.test(source)) return source;
  const groups = countGroups(source);
  let out = "";
  let sensitive = false;
  const outer: boolean[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charCodeAt(i);
    if (c === 0x5c) { // \
      const escape = readEscape(source, i, false, groups);
      if (!sensitive && isUpper(escape.code)) {
        out += String.fromCharCode(escape.code + TO_LOWER);
      } else {
        out += escape.plain ?? source.slice(i, escape.end);
      }
      i = escape.end;
    } else if (c === 0x5b) { // [
      const end = classEnd(source, i);
      out += sensitive
        ? source.slice(i, end)
        : foldClass(source, i, end, groups);
      i = end;
    } else if (c === 0x28) { // (
      const open = groupOpening(source, i);
      outer.push(sensitive);
      if (open.removesI) sensitive = true;
      if (open.addsI) sensitive = false;
      out += open.text;
      i += open.text.length;
    } else if (c === 0x29) { // )
      sensitive = outer.pop() ?? false;
      out += ")";
      i++;
    } else {
      out += !sensitive && isUpper(c)
        ? String.fromCharCode(c + TO_LOWER)
        : source[i];
      i++;
    }
  }
  return out;
}

/** The class source[start, end) with the lowercase twins of its uppercase letters put first. */
function foldClass(
  source: string,
  start: number,
  end: number,
  groups: Groups,
): string {
  let i = start + 1;
  if (source[i] === "^") i++;
  const head = source.slice(start, i);
  const upper = new Uint8Array(26);
  const last = end - 1; // the closing `]`
  while (i < last) {
    const low = classAtom(source, i, groups);
    i = low.end;
    if (source[i] === "-" && i + 1 < last) {
      const high = classAtom(source, i + 1, groups);
      if (low.code !== null && high.code !== null) {
        markUpper(upper, low.code, high.code);
        i = high.end;
        continue;
      }
    }
    if (low.code !== null) markUpper(upper, low.code, low.code);
  }
  // Each twin goes in as a full range (`c-c`), so a `-` that starts the
  // original contents cannot join it into a range of its own.
  let twins = "";
  for (let k = 0; k < 26; k++) {
    if (upper[k] === 0) continue;
    let to = k;
    while (to + 1 < 26 && upper[to + 1] === 1) to++;
    twins += String.fromCharCode(0x61 + k) + "-" +
      String.fromCharCode(0x61 + to);
    k = to;
  }
  return head + twins + source.slice(head.length + start, end);
}

function markUpper(upper: Uint8Array, from: number, to: number): void {
  for (let c = Math.max(from, UPPER_A); c <= Math.min(to, UPPER_Z); c++) {
    upper[c - UPPER_A] = 1;
  }
}

/** One class member at `i`: a character (with its code) or a class escape. */
function classAtom(source: string, i: number, groups: Groups): Escape {
  if (source[i] !== "\\") return { end: i + 1, code: source.charCodeAt(i) };
  return readEscape(source, i, true, groups);
}

/** The escape at `i` (a backslash), inside a class or not. */
function readEscape(
  source: string,
  i: number,
  inClass: boolean,
  groups: Groups,
): Escape {
  const next = source[i + 1] ?? "";
  const hex = next === "x" ? 2 : next === "u" ? 4 : 0;
  if (hex > 0) {
    const digits = source.slice(i + 2, i + 2 + hex);
    if (digits.length === hex && /^[0-9a-f]+$/i.test(digits)) {
      return { end: i + 2 + hex, code: parseInt(digits, 16) };
    }
    return { end: i + 2, code: next.charCodeAt(0), plain: next }; // "x"
  }
  if (next === "c") {
    const letter = source[i + 2] ?? "";
    const control = /[a-z]/i.test(letter) ||
      (inClass && /[0-9_]/.test(letter));
    // `\c` before anything else is a backslash, and the `c` stays a letter.
    return control
      ? { end: i + 3, code: letter.charCodeAt(0) % 32 }
      : { end: i + 1, code: 0x5c, plain: "\\\\" };
  }
  if (/[0-9]/.test(next)) return digitEscape(source, i, inClass, groups);
  if (next === "k" && groups.named && !inClass) {
    const close = source.indexOf(">", i);
    return { end: close < 0 ? i + 2 : close + 1, code: null };
  }
  const sets = inClass ? "dDsSwW" : "bBdDsSwW";
  if (sets.includes(next)) return { end: i + 2, code: null };
  const controls: Record<string, number> = {
    b: 0x08, // only inside a class: outside, `\b` is a set (above)
    f: 0x0c,
    n: 0x0a,
    r: 0x0d,
    t: 0x09,
    v: 0x0b,
  };
  return { end: i + 2, code: controls[next] ?? next.charCodeAt(0) };
}

/**
 * `\1`…: a backreference when that many groups exist (outside a class),
 * else Annex B's legacy octal escape (`\101` is "A"); `\8` and `\9` are the
 * digits themselves.
 */
function digitEscape(
  source: string,
  i: number,
  inClass: boolean,
  groups: Groups,
): Escape {
  let end = i + 1;
  while (end < source.length && /[0-9]/.test(source[end]!)) end++;
  const decimal = Number(source.slice(i + 1, end));
  if (!inClass && decimal > 0 && decimal <= groups.captures) {
    return { end, code: null };
  }
  const first = source.charCodeAt(i + 1) - 0x30;
  if (first > 7) return { end: i + 2, code: first + 0x30 };
  const maxDigits = first <= 3 ? 3 : 2;
  let octalEnd = i + 2;
  while (
    octalEnd < i + 1 + maxDigits && /[0-7]/.test(source[octalEnd] ?? "")
  ) octalEnd++;
  return { end: octalEnd, code: parseInt(source.slice(i + 1, octalEnd), 8) };
}

/** The text that opens the group at `i` and how it changes the `i` flag. */
function groupOpening(
  source: string,
  i: number,
): { text: string; addsI: boolean; removesI: boolean } {
  const noFlag = { addsI: false, removesI: false };
  if (source[i + 1] !== "?") return { text: "(", ...noFlag };
  const named = /^\(\?<[^=!][^>]*>/.exec(source.slice(i, i + 300));
  if (named !== null) return { text: named[0], ...noFlag };
  const modifiers = /^\(\?([a-z]*)(?:-([a-z]*))?:/.exec(
    source.slice(i, i + 16),
  );
  if (modifiers !== null) {
    return {
      text: modifiers[0],
      addsI: (modifiers[1] ?? "").includes("i"),
      removesI: (modifiers[2] ?? "").includes("i"),
    };
  }
  const lookaround = source[i + 2] === "<" ? 4 : 3; // (?<= (?<! or (?= (?!
  return { text: source.slice(i, i + lookaround), ...noFlag };
}

/** Index after the `]` that closes the class opening at `start`. */
function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === "^") i++;
  while (i < source.length) {
    if (source[i] === "\\") i += 2;
    else if (source[i] === "]") return i + 1;
    else i++;
  }
  return source.length;
}

/** Capturing groups (for `\1` vs octal) and whether any is named (`\k<…>`). */
function countGroups(source: string): Groups {
  const groups = { captures: 0, named: false };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(source, i) - 1;
    else if (c === "(" && source[i + 1] !== "?") groups.captures++;
    else if (c === "(" && /^\(\?<[^=!]/.test(source.slice(i, i + 4))) {
      groups.captures++;
      groups.named = true;
    }
  }
  return groups;
}

function isUpper(code: number | null): code is number {
  return code !== null && code >= UPPER_A && code <= UPPER_Z;
}
