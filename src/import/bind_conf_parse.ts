/**
 * Builds named.conf's statement tree from its tokens. Every statement of
 * BIND's grammar is a run of words and `{ … }` blocks ended by `;`
 * (`zone "x" { type primary; file "x.db"; };`, `inet 10.0.0.1 port 953
 * allow { any; } keys { k; };`), so one shape serves them all and the
 * importer reads each statement by its first word. Nothing here knows what
 * a statement means.
 */
import { ConfSyntaxError, type ConfToken, lexConf } from "./bind_conf_lex.ts";

/** A `{ … }` block: the statements between the braces. */
export interface ConfBlock {
  statements: ConfStatement[];
  line: number;
}

/** One statement: its words and blocks in order, up to its `;`. */
export interface ConfStatement {
  file: string;
  /** Line of the first word. */
  line: number;
  items: (ConfToken | ConfBlock)[];
}

/** Deepest nesting of blocks read (BIND's own grammar needs 4). */
const MAX_DEPTH = 32;

export function isBlock(item: ConfToken | ConfBlock): item is ConfBlock {
  return "statements" in item;
}

/** The statement's words before its first block (`zone`, `"x"`, `in`). */
export function wordsOf(st: ConfStatement): string[] {
  const out: string[] = [];
  for (const item of st.items) {
    if (isBlock(item)) break;
    out.push(item.text);
  }
  return out;
}

/** Every word of the statement, blocks left out. */
export function allWordsOf(st: ConfStatement): string[] {
  return st.items.filter((i) => !isBlock(i)).map((i) => (i as ConfToken).text);
}

/** The statement's first word, lowercase: what kind of statement it is. */
export function keywordOf(st: ConfStatement): string {
  const first = st.items[0];
  return first === undefined || isBlock(first) ? "" : first.text.toLowerCase();
}

/** The statement's first block, if it has one. */
export function blockOf(st: ConfStatement): ConfBlock | undefined {
  return st.items.find(isBlock);
}

/**
 * The statements of a named.conf's text.
 *
 * @throws {ConfSyntaxError} for unclosed strings, comments or braces, and a
 *   `}` with no `{`
 */
export function parseConf(text: string, file: string): ConfStatement[] {
  const tokens = lexConf(text, file);
  const at = { i: 0 };
  const statements = readStatements(tokens, at, 0, file);
  if (at.i < tokens.length) {
    const t = tokens[at.i]!;
    throw new ConfSyntaxError(t.file, t.line, "a } that closes no {");
  }
  return statements;
}

function readStatements(
  tokens: ConfToken[],
  at: { i: number },
  depth: number,
  file: string,
): ConfStatement[] {
  const statements: ConfStatement[] = [];
  while (at.i < tokens.length) {
    const t = tokens[at.i]!;
    if (!t.quoted && t.text === "}") return statements;
    if (!t.quoted && t.text === ";") {
      at.i++;
      continue;
    }
    const st: ConfStatement = { file: t.file, line: t.line, items: [] };
    while (at.i < tokens.length) {
      const u = tokens[at.i]!;
      if (!u.quoted && u.text === ";") {
        at.i++;
        break;
      }
      // A statement cut short by its block's end; named would want a `;`.
      if (!u.quoted && u.text === "}") break;
      if (!u.quoted && u.text === "{") {
        if (depth + 1 > MAX_DEPTH) {
          throw new ConfSyntaxError(u.file, u.line, "blocks nest too deeply");
        }
        at.i++;
        const inner = readStatements(tokens, at, depth + 1, file);
        const close = tokens[at.i];
        if (close === undefined) {
          throw new ConfSyntaxError(u.file, u.line, "a { is never closed");
        }
        at.i++;
        st.items.push({ statements: inner, line: u.line });
        continue;
      }
      st.items.push(u);
      at.i++;
    }
    if (st.items.length > 0) statements.push(st);
  }
  return statements;
}
