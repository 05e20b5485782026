/**
 * Hostname globs of ClientGroup `hostname` entries: `*` (any run of
 * characters, dots included, so "*.lan" covers "tv.kids.lan"), `?` (one
 * character) and `[...]` (one of a set or range, e.g. "[0-9]"), matched
 * case-insensitively against the whole PTR name without its trailing dot.
 * Everything else is literal; an unclosed "[" is a literal "[".
 */

/** Compiles `glob` into an anchored, case-insensitive RegExp. */
export function compileHostnameGlob(glob: string): RegExp {
  const text = glob.toLowerCase().replace(/\.$/, "");
  let source = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "*") {
      source += ".*";
    } else if (ch === "?") {
      source += ".";
    } else if (ch === "[") {
      const close = text.indexOf("]", i + 2);
      if (close < 0) {
        source += "\\[";
        continue;
      }
      source += `[${classBody(text.slice(i + 1, close))}]`;
      i = close;
    } else {
      source += escapeLiteral(ch);
    }
  }
  return new RegExp(`^${source}$`, "i");
}

/** A set's body with everything but "-" between two characters made literal. */
function classBody(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    const isRange = ch === "-" && i > 0 && i < body.length - 1;
    out += isRange ? "-" : escapeLiteral(ch);
  }
  return out;
}

function escapeLiteral(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}
