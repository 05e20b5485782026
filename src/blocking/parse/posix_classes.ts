/**
 * Pi-hole's regex lists are POSIX extended expressions (FTL compiles them
 * with TRE), where `[[:digit:]]` is a digit. In JavaScript the same text is
 * a class of the characters `[:digt` followed by `]`: it compiles, loads
 * without a warning and never matches what was meant. The named classes
 * inside bracket expressions are written out as JavaScript ranges here.
 */

/** POSIX named classes (the C locale) as JavaScript class contents. */
const CLASSES: Readonly<Record<string, string>> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "\\x21-\\x7e",
  lower: "a-z",
  print: "\\x20-\\x7e",
  punct: "!-\\/:-@\\[-`{-~",
  space: " \\t\\n\\r\\f\\v",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
};

const NAMED_CLASS = /^\[:([a-z]+):\]/;

/**
 * `source` with every `[:name:]` inside a bracket expression replaced by
 * its range; an unknown name is an error (its message says which).
 */
export function translatePosixClasses(
  source: string,
): { ok: true; source: string } | { ok: false; why: string } {
  if (!source.includes("[:")) return { ok: true, source };
  let out = "";
  let inBracket = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    if (!inBracket) {
      out += c;
      if (c === "[") {
        inBracket = true;
        // A "]" right after "[" or "[^" is a member, not the end.
        if (source[i + 1] === "^") out += source[++i];
        if (source[i + 1] === "]") out += source[++i];
      }
      continue;
    }
    const named = c === "[" ? NAMED_CLASS.exec(source.slice(i)) : null;
    if (named !== null) {
      const range = CLASSES[named[1]!];
      if (range === undefined) {
        return { ok: false, why: `unknown character class [:${named[1]}:]` };
      }
      out += range;
      i += named[0].length - 1;
      continue;
    }
    if (c === "]") inBracket = false;
    out += c;
  }
  return { ok: true, source: out };
}
