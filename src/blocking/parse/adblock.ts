/**
 * Adblock-syntax lines, the DNS-relevant subset (seed §7.3):
 *   `||x^`, `||x`, `||x^|`   -> suffix rule on x ("adblock")
 *   `@@||x^`                 -> the same as an exception
 *   `…$important`            -> important flag
 *   `…$badfilter`            -> switches the same rule without it off
 *   `/re/`, `@@/re/`         -> regex rule (adblock format only)
 *   `x`                      -> exact rule ("domain"); `0.0.0.0 x` -> hosts line
 * Every other modifier, element-hiding and scriptlet rules, URL-path and
 * address-anchored rules and mid-pattern wildcards are counted as
 * unsupported and ignored, so a browser list loads safely.
 */

import type { ParseContext } from "./context.ts";
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
    ctx.unsupported(
      "element-hiding, scriptlet and HTML rules apply in browsers only",
    );
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
      );
      if (modifiers !== null) {
        ctx.disabling = modifiers.badfilter;
        regexRule(ctx, rest.slice(1, close), exception, modifiers.important);
        ctx.disabling = false;
      }
    }
    return;
  }

  const dollar = rest.indexOf("$");
  const pattern = dollar < 0 ? rest : rest.slice(0, dollar);
  const modifiers = readModifiers(
    ctx,
    dollar < 0 ? null : rest.slice(dollar + 1),
  );
  if (modifiers === null) return;
  const { important } = modifiers;
  // A `$badfilter` line's rule switches the rule off instead (see RuleSink).
  ctx.disabling = modifiers.badfilter;

  if (pattern.length === 0) {
    ctx.invalid("a rule without a pattern");
  } else if (pattern.startsWith("||")) {
    anchoredHost(ctx, pattern.slice(2), exception, important);
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
  ctx.disabling = false;
}

/** The host part of `||host^`: a suffix rule, or exact for an IP address. */
function anchoredHost(
  ctx: ParseContext,
  text: string,
  exception: boolean,
  important: boolean,
): void {
  let host = text;
  if (host.endsWith("^|")) host = host.slice(0, -2);
  else if (host.endsWith("^")) host = host.slice(0, -1);
  if (host.includes("*")) {
    ctx.unsupported("a wildcard inside the pattern is not supported");
    return;
  }
  if (URL_PATTERN.test(host)) {
    ctx.unsupported("a URL-path rule applies in browsers only");
    return;
  }
  const name = normalizeName(host);
  if (name !== null) hostRule(ctx, name, exception, important);
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
 * The modifier list after `$`: `$important` and `$badfilter`, or null when
 * the rule was counted (unsupported modifier, empty modifier).
 */
function readModifiers(
  ctx: ParseContext,
  text: string | null,
): { important: boolean; badfilter: boolean } | null {
  const read = { important: false, badfilter: false };
  if (text === null) return read;
  for (const raw of text.split(",")) {
    const modifier = raw.trim();
    if (modifier === "important") {
      read.important = true;
    } else if (modifier === "badfilter") {
      read.badfilter = true;
    } else if (modifier === "") {
      ctx.invalid("an empty modifier");
      return null;
    } else {
      const name = modifier.split("=", 1)[0] ?? modifier;
      ctx.unsupported(`the $${name.slice(0, 30)} modifier is not supported`);
      return null;
    }
  }
  return read;
}
