/**
 * Adblock-syntax lines, the DNS-relevant subset:
 *   `||x^`, `||x`, `||x^|`   -> suffix rule on x ("adblock")
 *   `|x^`, `|x`, `|x|`       -> exact rule on x (`|` anchors at the name's start)
 *   `@@||x^`                 -> the same as an exception
 *   `…$important`            -> important flag
 *   `…$badfilter`            -> switches the same rule without it off
 *   `@@…$dnstype=…`          -> an exception for every query (also `$client`, `$ctag`)
 *   `/re/`, `@@/re/`         -> regex rule (adblock format only)
 *   `x`                      -> exact rule ("domain"); `0.0.0.0 x` -> hosts line
 * Every other modifier, element-hiding and scriptlet rules, URL-path and
 * address-anchored rules and mid-pattern wildcards are counted as
 * unsupported and ignored, so a browser list loads safely.
 */

import { COSMETIC_REASON, type ParseContext } from "./context.ts";
import { canonicalIp, isPlainNameAt, normalizeName } from "./names.ts";
import { nameRule, parsePlainLine } from "./plain.ts";
import { regexRule } from "./regex.ts";

const PIPE = 0x7c;
const CARET = 0x5e;

/** `##`, `#@#`, `#$#`, `#?#`, `#%#`, `#@$?#`…: cosmetic rules; `$$`: HTML filtering. */
const COSMETIC = /#@?[$?%]{0,2}#|\$\$/;
/** Characters that make a pattern a URL pattern rather than a host name. */
const URL_PATTERN = /[/^|?=&]/;
const BLANK = /\s/;
/** `|http://`, `|https:`, `|ws://`: anchored at the start of an address, not of a name. */
const SCHEME = /^\|[a-z][a-z0-9+.-]*:/i;
/** Modifiers that narrow where a rule applies (see readModifiers). */
const NARROWING_MODIFIERS: ReadonlySet<string> = new Set([
  "dnstype",
  "client",
  "ctag",
]);

/**
 * Parses the trimmed line body[start, end) as adblock syntax. `allowRegex`
 * is false when an adblock-looking line turns up in a hosts or domains list,
 * where `/…/` is not a rule.
 */
export function parseAdblockLine(
  ctx: ParseContext,
  start: number,
  end: number,
  allowRegex: boolean,
): void {
  const body = ctx.body;
  // Fast path, nearly every line of a DNS adblock list: ||name^
  if (
    body.charCodeAt(start) === PIPE && body.charCodeAt(start + 1) === PIPE &&
    body.charCodeAt(end - 1) === CARET &&
    isPlainNameAt(body, start + 2, end - 1)
  ) {
    hostRule(ctx, body.slice(start + 2, end - 1), false, false);
    return;
  }
  parseGeneralLine(ctx, start, end, allowRegex);
  ctx.disabling = false;
  ctx.broadenedBy = null;
}

function parseGeneralLine(
  ctx: ParseContext,
  start: number,
  end: number,
  allowRegex: boolean,
): void {
  const line = ctx.body.slice(start, end);
  if (line.startsWith("[") && line.endsWith("]")) return; // [Adblock Plus 2.0]
  if (COSMETIC.test(line)) {
    ctx.unsupported(COSMETIC_REASON);
    return;
  }
  const exception = line.startsWith("@@");
  const rest = exception ? line.slice(2) : line;
  const restStart = exception ? start + 2 : start;

  if (rest.startsWith("/")) {
    const close = rest.lastIndexOf("/");
    const regexEnds = close > 0 &&
      (close === rest.length - 1 || rest[close + 1] === "$");
    if (!regexEnds) {
      ctx.unsupported("a URL-path rule applies in browsers only");
    } else if (!allowRegex) {
      ctx.invalid("regular expressions need the adblock or regex format");
    } else {
      const modifiers = readModifiers(
        ctx,
        close === rest.length - 1 ? null : rest.slice(close + 2),
        exception,
      );
      if (modifiers !== null) {
        regexRule(ctx, rest.slice(1, close), exception, modifiers.important);
      }
    }
    return;
  }

  const dollar = rest.indexOf("$");
  const pattern = dollar < 0 ? rest : rest.slice(0, dollar);
  const modifiers = readModifiers(
    ctx,
    dollar < 0 ? null : rest.slice(dollar + 1),
    exception,
  );
  if (modifiers === null) return;
  const { important } = modifiers;

  if (pattern.length === 0) {
    ctx.invalid("a rule without a pattern");
  } else if (pattern.startsWith("||")) {
    anchoredHost(ctx, pattern.slice(2), "suffix", exception, important);
  } else if (pattern.startsWith("|") && !SCHEME.test(pattern)) {
    anchoredHost(ctx, pattern.slice(1), "exact", exception, important);
  } else if (pattern.startsWith("|")) {
    ctx.unsupported(
      "an address-anchored rule (|http://…) applies in browsers only",
    );
  } else if (pattern.startsWith("*.") && !URL_PATTERN.test(pattern)) {
    nameRule(ctx, restStart, restStart + pattern.length, exception, important);
  } else if (pattern.includes("*")) {
    ctx.unsupported("a wildcard inside the pattern is not supported");
  } else if (URL_PATTERN.test(pattern)) {
    ctx.unsupported("a URL pattern applies in browsers only");
  } else if (BLANK.test(pattern)) {
    if (exception || dollar >= 0) ctx.invalid("spaces inside a rule");
    else parsePlainLine(ctx, start, end); // a hosts line in an adblock list
  } else {
    nameRule(ctx, restStart, restStart + pattern.length, exception, important);
  }
}

/**
 * The host part of `||host^` (a suffix rule, or exact for an IP address)
 * or of `|host^`. AdGuard's DNS syntax anchors a single `|` at the start of
 * the name, so `|host^` is exactly that name. Without `^` or `|` at the end
 * both also match names that merely start with the text (`||ads.example`
 * matches ads.example.org); the rule kept is the part of that we can say
 * for sure.
 */
function anchoredHost(
  ctx: ParseContext,
  text: string,
  kind: "suffix" | "exact",
  exception: boolean,
  important: boolean,
): void {
  let host = text;
  if (host.endsWith("^|")) host = host.slice(0, -2);
  else if (host.endsWith("^") || host.endsWith("|")) host = host.slice(0, -1);
  if (host.includes("*")) {
    ctx.unsupported("a wildcard inside the pattern is not supported");
    return;
  }
  if (URL_PATTERN.test(host)) {
    ctx.unsupported("a URL-path rule applies in browsers only");
    return;
  }
  const name = normalizeName(host);
  if (name !== null && kind === "exact") {
    // Printed back as the plain name: "||name^" would say "and below".
    ctx.emit("exact", name, "domain", exception, important);
  } else if (name !== null) hostRule(ctx, name, exception, important);
  else if (host.includes(":")) {
    ctx.unsupported("a rule with a port or scheme applies in browsers only");
  } else ctx.invalid("not a valid domain name");
}

/**
 * `||name^` covers the name and everything below it; an address cannot have
 * names below it, so `||192.0.2.1^` is an exact rule on the address.
 */
function hostRule(
  ctx: ParseContext,
  name: string,
  exception: boolean,
  important: boolean,
): void {
  const last = name.charCodeAt(name.length - 1);
  const isIp = (last >= 0x30 && last <= 0x39 || name.includes(":")) &&
    canonicalIp(name) !== null;
  ctx.emit(isIp ? "exact" : "suffix", name, "adblock", exception, important);
}

/**
 * Reads the modifier list after `$` and sets the line's `disabling` and
 * `broadenedBy`. Returns `$important`, or null when the rule was counted
 * instead (unsupported modifier, empty modifier).
 *
 * `$dnstype`, `$client` and `$ctag` narrow where a rule applies, and
 * kudurru does not apply them yet. Dropping a block rule that has them
 * blocks less than its author meant; dropping an exception would block
 * what its author excepted (`@@||x^$dnstype=A` under `||x^`: x blocked
 * for every type). So an exception keeps applying, to every query. Not
 * `$denyallow`: it names the names the exception must leave blocked, and
 * an exception for every name would unblock exactly those.
 */
function readModifiers(
  ctx: ParseContext,
  text: string | null,
  exception: boolean,
): { important: boolean } | null {
  const read = { important: false };
  if (text === null) return read;
  let badfilter = false;
  let broadenedBy: string | null = null;
  for (const raw of text.split(",")) {
    const modifier = raw.trim();
    const name = modifier.split("=", 1)[0] ?? modifier;
    if (modifier === "important") {
      read.important = true;
    } else if (modifier === "badfilter") {
      badfilter = true;
    } else if (modifier === "") {
      ctx.invalid("an empty modifier");
      return null;
    } else if (exception && NARROWING_MODIFIERS.has(name)) {
      broadenedBy ??= name;
    } else {
      ctx.unsupported(`the $${name.slice(0, 30)} modifier is not supported`);
      return null;
    }
  }
  if (badfilter && broadenedBy !== null) {
    // Switching `@@x` off for `@@x$dnstype=A` would also drop a plain `@@x`.
    ctx.unsupported(
      `the $${broadenedBy} modifier is not supported with $badfilter`,
    );
    return null;
  }
  // A `$badfilter` line's rule switches the rule off instead (see RuleSink).
  ctx.disabling = badfilter;
  ctx.broadenedBy = broadenedBy;
  return read;
}
