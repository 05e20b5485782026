/**
 * Regular-expression rules: lines of a regex list (Pi-hole style, with or
 * without surrounding slashes) and adblock `/re/` rules. Each expression
 * must compile with `new RegExp(src)`, and a list may hold at most
 * `maxRegexes` of them because every unindexed expression costs every query
 * (docs/design.md#blocking-engine, hard cap 1,000). Case does not matter, as in
 * DNS names: the rule carries the expression folded to lowercase
 * (regex_case.ts), since the `i` flag would switch off the linear-time engine.
 */

import type { ParseContext } from "./context.ts";
import { translatePosixClasses } from "./posix_classes.ts";
import { foldCase } from "./regex_case.ts";
import { regexRuleProblem } from "./regex_engine.ts";

/** Pi-hole's regex extensions: they change what a match does, which we cannot honour. */
const PIHOLE_EXTENSION = /;(querytype|invert|reply)=?/;
/** `/re/flags`: flags would change the meaning; case is ignored already. */
const WITH_FLAGS = /^\/.+\/[a-z]+$/s;
/** `||x^`, `|x`, `@@||x^`: adblock rules, not expressions. */
const ADBLOCK_START = /^(\||@@)/;

/** Parses the trimmed line body[start, end) of a regex list. */
export function parseRegexLine(
  ctx: ParseContext,
  start: number,
  end: number,
): void {
  const text = ctx.body.slice(start, end);
  if (PIHOLE_EXTENSION.test(text)) {
    ctx.unsupported(
      "Pi-hole regex extensions (;querytype=, ;invert, ;reply=) are not supported",
    );
    return;
  }
  if (ADBLOCK_START.test(text)) {
    // As a regex, `||x^` has empty alternatives: it would match every name.
    ctx.invalid(
      "adblock syntax in a regex list (set the source's format: adblock)",
    );
    return;
  }
  if (WITH_FLAGS.test(text)) {
    ctx.invalid("regular-expression flags are not supported");
    return;
  }
  const slashed = text.length > 2 && text.startsWith("/") && text.endsWith("/");
  // Pi-hole's expressions are POSIX: [[:digit:]] and friends.
  const posix = translatePosixClasses(slashed ? text.slice(1, -1) : text);
  if (!posix.ok) {
    ctx.invalid(posix.why);
    return;
  }
  regexRule(ctx, posix.source, false, false);
}

/** Checks one expression, folds its case and hands it to the sink as a regex rule. */
export function regexRule(
  ctx: ParseContext,
  written: string,
  exception: boolean,
  important: boolean,
): void {
  if (written.length === 0) {
    ctx.invalid("an empty regular expression");
    return;
  }
  if (ctx.regexes >= ctx.maxRegexes) {
    ctx.invalidWithMessage(
      `more than ${ctx.maxRegexes} regular expressions in one list`,
    );
    return;
  }
  try {
    new RegExp(written);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.invalid(`not a valid regular expression (${message.slice(0, 80)})`);
    return;
  }
  const source = foldCase(written);
  const problem = regexRuleProblem(source);
  if (problem !== null) {
    ctx.invalid(problem);
    return;
  }
  ctx.regexes++;
  ctx.emit("regex", source, "regex", exception, important);
}
