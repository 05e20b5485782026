/**
 * The lexical layer of an RFC 1035 §5.1 master file: the text cut into
 * entries (one record or directive each: a line, or several lines held
 * together by parentheses), each a list of tokens, with the line it starts
 * on. Comments (`;` to the end of the line, outside quotes) are dropped;
 * quoted strings keep `;`, `(`, `)` and whitespace; a backslash protects
 * the next character. Tokens keep their text as written (quotes and
 * escapes included), so the record parser can hand rdata to
 * src/dns/rdata_text.ts unchanged.
 */

/** One field of an entry, as written. */
export interface ZoneToken {
  /** The text as written: quotes and escapes kept (`"a b"`, `a\;b`). */
  text: string;
  /** The token starts with a quote (a character-string). */
  quoted: boolean;
}

/** One record or directive. */
export interface ZoneEntry {
  /** 1-based line the entry starts on. */
  line: number;
  /** The source lines of the entry, trimmed and cut to 256 characters. */
  text: string;
  /** The first line starts with a blank: the owner is the previous one. */
  blankOwner: boolean;
  tokens: ZoneToken[];
  /** A lexical problem (an unterminated quote, an unbalanced parenthesis). */
  error?: string;
}

/** Longest `text` an entry keeps, for reports. */
const MAX_ENTRY_TEXT = 256;

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
const OPEN = 0x28;
const CLOSE = 0x29;

/** Where a lex stopped: the offset of the text not read, and its line. */
export interface LexRest {
  offset: number;
  line: number;
}

/**
 * Cuts `text` into entries. Lines holding only blanks and comments give
 * none. A problem ends the entry it is found in (with `error` set) and the
 * next line starts afresh. `firstLine` numbers the text's first line;
 * with `partial` the text is a piece of the file ending at a newline, and
 * an entry whose parentheses are still open at its end is not read: the
 * generator returns where it starts (ZoneLexer gives it the next piece).
 */
export function* lexZoneFile(
  text: string,
  firstLine = 1,
  partial = false,
): Generator<ZoneEntry, LexRest> {
  let i = 0;
  let line = firstLine;
  const n = text.length;
  while (i < n) {
    // One entry: from the start of a line to the newline outside parentheses.
    const start = i;
    const startLine = line;
    const first = text.charCodeAt(i);
    const blankOwner = first === SPACE || first === TAB;
    const tokens: ZoneToken[] = [];
    let depth = 0;
    let error: string | undefined;
    let token: string | undefined;
    let quoted = false;
    const endToken = () => {
      if (token !== undefined) tokens.push({ text: token, quoted });
      token = undefined;
      quoted = false;
    };
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === LF) {
        endToken();
        if (depth === 0) break;
        line++;
      } else if (c === SPACE || c === TAB || c === CR) {
        endToken();
      } else if (c === SEMICOLON) {
        endToken();
        while (i + 1 < n && text.charCodeAt(i + 1) !== LF) i++;
      } else if (c === OPEN) {
        endToken();
        depth++;
      } else if (c === CLOSE) {
        endToken();
        if (depth === 0) {
          error = 'a ")" closes no "("';
          break;
        }
        depth--;
      } else if (
        c === BACKSLASH && i + 1 < n && text.charCodeAt(i + 1) !== LF
      ) {
        token = (token ?? "") + text.slice(i, i + 2);
        i++;
      } else if (c === QUOTE) {
        if (token === undefined) quoted = true;
        const close = closingQuote(text, i + 1);
        if (close === undefined) {
          error = "a quoted string is not closed on its line";
          break;
        }
        token = (token ?? "") + text.slice(i, close + 1);
        i = close;
      } else {
        token = (token ?? "") + text[i];
      }
    }
    endToken();
    if (partial && error === undefined && depth > 0) {
      return { offset: start, line: startLine };
    }
    if (error === undefined && depth > 0) {
      error = `a "(" opened on line ${startLine} is never closed`;
    }
    if (error !== undefined) {
      // Resume on the line after the one where the problem was found.
      while (i < n && text.charCodeAt(i) !== LF) i++;
    }
    const end = i;
    if (i < n) {
      i++; // the newline
      line++;
    }
    if (tokens.length === 0 && error === undefined) continue;
    yield {
      line: startLine,
      text: entryText(text.slice(start, end)),
      blankOwner,
      tokens,
      ...(error !== undefined && { error }),
    };
  }
  return { offset: n, line };
}

/** Most text carried from one piece to the next (an entry being completed). */
const MAX_CARRIED = 1024 * 1024;

/**
 * The entries of a zone file given in pieces (read from disk a chunk at a
 * time), as lexZoneFile gives those of the whole text: each piece's
 * complete entries are read, the rest waits for the next piece. Only an
 * entry longer than MAX_CARRIED reads differently (a "(" left open, or a
 * line without end): it is cut there, where the whole text would run it
 * to the end of the file or the line.
 */
export class ZoneLexer {
  #carried = "";
  #line = 1;

  /** The entries complete with `piece`; `last` reads whatever is left. */
  *feed(piece: string, last = false): Generator<ZoneEntry> {
    const text = this.#carried + piece;
    const whole = last || this.#carried.length > MAX_CARRIED;
    const cut = whole ? text.length : text.lastIndexOf("\n") + 1;
    const lex = lexZoneFile(text.slice(0, cut), this.#line, !whole);
    let step = lex.next();
    for (; !step.done; step = lex.next()) yield step.value;
    this.#carried = text.slice(step.value.offset);
    this.#line = step.value.line;
  }
}

/** The index of the quote closing one opened before `from`, on the same line. */
function closingQuote(text: string, from: number): number | undefined {
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j;
    else if (c === LF) return undefined;
  }
  return undefined;
}

function entryText(source: string): string {
  const trimmed = source.trim().replace(/\s*\n\s*/g, " ");
  return trimmed.length > MAX_ENTRY_TEXT
    ? trimmed.slice(0, MAX_ENTRY_TEXT - 1) + "…"
    : trimmed;
}
