/**
 * Splits a BIND named.conf into tokens: words, quoted strings and the
 * punctuation `{`, `}`, `;` that the grammar is built of (BIND 9
 * Administrator Reference Manual, "Configuration File Grammar"). The three
 * comment styles named accepts are dropped: `//` and `#` to the end of the
 * line, and C-style `/* … *\/` (which may span lines). Every token keeps its
 * file and line so the import report can point at it.
 */

/** One token of a named.conf. */
export interface ConfToken {
  /** The word, the string without its quotes, or `{`, `}`, `;`. */
  text: string;
  /** True for a "quoted string": `{` inside quotes is text, not punctuation. */
  quoted: boolean;
  /** The file as the report names it. */
  file: string;
  /** 1-based line the token starts on. */
  line: number;
}

/** A named.conf that cannot be read as tokens: where, and what is wrong. */
export class ConfSyntaxError extends Error {
  override name = "ConfSyntaxError";
  constructor(readonly file: string, readonly line: number, message: string) {
    super(`${file}:${line}: ${message}`);
  }
}

const PUNCTUATION = new Set(["{", "}", ";"]);
/** Characters that end a bare word (besides white space). */
const WORD_END = /[\s{};"#]/;

/**
 * The tokens of `text`, read as the file `file`.
 *
 * @throws {ConfSyntaxError} for a string or comment that is never closed
 */
export function lexConf(text: string, file: string): ConfToken[] {
  const tokens: ConfToken[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === "#" || (c === "/" && text[i + 1] === "/")) {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const start = line;
      const end = text.indexOf("*/", i + 2);
      if (end < 0) {
        throw new ConfSyntaxError(file, start, "a /* comment is never closed");
      }
      for (let j = i; j < end; j++) if (text[j] === "\n") line++;
      i = end + 2;
    } else if (PUNCTUATION.has(c)) {
      tokens.push({ text: c, quoted: false, file, line });
      i++;
    } else if (c === '"') {
      const start = line;
      let value = "";
      i++;
      for (;;) {
        if (i >= n) {
          throw new ConfSyntaxError(
            file,
            start,
            "a quoted string is never closed",
          );
        }
        const d = text[i]!;
        if (d === '"') break;
        // named keeps a backslash's next character as it is (`\"` is a quote).
        if (d === "\\" && i + 1 < n) {
          value += text[i + 1];
          if (text[i + 1] === "\n") line++;
          i += 2;
          continue;
        }
        if (d === "\n") line++;
        value += d;
        i++;
      }
      i++;
      tokens.push({ text: value, quoted: true, file, line: start });
    } else {
      let j = i;
      while (j < n && !WORD_END.test(text[j]!)) {
        if (text[j] === "/" && (text[j + 1] === "/" || text[j + 1] === "*")) {
          break;
        }
        j++;
      }
      tokens.push({ text: text.slice(i, j), quoted: false, file, line });
      i = j;
    }
  }
  return tokens;
}
