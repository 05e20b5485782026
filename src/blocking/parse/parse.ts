/**
 * `parseList`: one pass over a list body, line by line by index (never
 * `split("\n")`, never an array of rules), handing each rule to the sink as
 * it is read, so a multi-million-line list streams straight into the
 * compiler's buffers.
 */

import { type ListFormat, NotAListError, type RuleSink } from "../types.ts";
import { parseAdblockLine } from "./adblock.ts";
import {
  COSMETIC_REASON,
  isBlank,
  type ListParseStats,
  ParseContext,
} from "./context.ts";
import { textNotAListReason } from "./detect.ts";
import { parsePlainLine } from "./plain.ts";
import { parseRegexLine } from "./regex.ts";
import { sniffFormat } from "./sniff.ts";

/**
 * Hard cap of regular expressions per list (docs/design.md#blocking-engine).
 */
export const DEFAULT_MAX_REGEXES = 1000;
/** Longer lines are not rules any list means (names stop at 253). */
const MAX_LINE = 8192;
const MAX_TITLE = 200;

const HASH = 0x23;
const BANG = 0x21;
const PIPE = 0x7c;
const AT = 0x40;

export interface ParseOptions {
  /** Regular expressions accepted per list; the rest count as invalid. */
  maxRegexes?: number;
}

type LineParser = (ctx: ParseContext, start: number, end: number) => void;

const LINE_PARSERS: Record<Exclude<ListFormat, "auto">, LineParser> = {
  adblock: (ctx, start, end) => parseAdblockLine(ctx, start, end, true),
  regex: parseRegexLine,
  hosts: plainOrAdblock,
  domains: plainOrAdblock,
};

/** Cosmetic rules that start with `#` (`##.ad`, `#@#.ad`, `#$#…`), as opposed to comments. */
const HASH_COSMETIC = /^#@?[$?%]{0,2}#[^#\s]/;
const TITLE = /^[!#]\s*title:\s*(.*)$/i;

/**
 * Parses a list body, streaming its rules into `sink`.
 * @throws NotAListError when the body is an HTML page or binary data.
 */
export function parseList(
  body: string,
  format: ListFormat,
  sink: RuleSink,
  opts: ParseOptions = {},
): ListParseStats {
  const reason = textNotAListReason(body);
  if (reason !== null) throw new NotAListError(reason);
  const resolved = format === "auto" ? sniffFormat(body) : format;
  const maxRegexes = Math.max(
    0,
    Math.floor(opts.maxRegexes ?? DEFAULT_MAX_REGEXES),
  );
  const ctx = new ParseContext(body, sink, maxRegexes, resolved);
  const parseLine = LINE_PARSERS[resolved];
  const length = body.length;
  let pos = body.charCodeAt(0) === 0xfeff ? 1 : 0; // BOM
  let line = 0;
  while (pos < length) {
    let next = body.indexOf("\n", pos);
    if (next < 0) next = length;
    line++;
    let start = pos;
    let end = next;
    pos = next + 1;
    // Trims blanks, tabs and the CR of CRLF endings.
    while (start < end && isBlank(body.charCodeAt(start))) start++;
    while (end > start && isBlank(body.charCodeAt(end - 1))) end--;
    if (start === end) continue;
    ctx.line = line;
    ctx.lineStart = start;
    ctx.lineEnd = end;
    const first = body.charCodeAt(start);
    if (first === HASH || first === BANG) {
      commentLine(ctx, resolved);
    } else if (end - start > MAX_LINE) {
      ctx.invalid(`longer than ${MAX_LINE} characters`);
    } else {
      parseLine(ctx, start, end);
    }
  }
  return ctx.stats;
}

/** Hosts and domains lists: adblock-looking lines are read as adblock (without regexes). */
function plainOrAdblock(ctx: ParseContext, start: number, end: number): void {
  const first = ctx.body.charCodeAt(start);
  if (first === PIPE || first === AT) parseAdblockLine(ctx, start, end, false);
  else parsePlainLine(ctx, start, end);
}

/** A `#` or `!` line: the title, an adblock cosmetic rule, or a comment. */
function commentLine(
  ctx: ParseContext,
  format: Exclude<ListFormat, "auto">,
): void {
  const stats = ctx.stats;
  if (stats.title === undefined && ctx.lineEnd - ctx.lineStart < 1024) {
    const match = TITLE.exec(ctx.lineText());
    if (match) {
      const title = (match[1] ?? "").trim();
      if (title.length > 0) stats.title = title.slice(0, MAX_TITLE);
      return;
    }
  }
  if (
    format === "adblock" && ctx.body.charCodeAt(ctx.lineStart) === HASH &&
    HASH_COSMETIC.test(ctx.lineText())
  ) {
    ctx.unsupported(COSMETIC_REASON);
  }
}
