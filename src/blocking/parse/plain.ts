/**
 * Lines of hosts and plain-domain lists:
 *   `0.0.0.0 a.example b.example  # comment`  -> exact rules, syntax "hosts"
 *   `a.example`                               -> exact rule, syntax "domain"
 *   `*.a.example`                             -> suffix rule on a.example, syntax "wildcard"
 *   `192.0.2.1`                               -> exact rule on the address
 * Both shapes are accepted in both formats (and in adblock lists), because
 * real "domains" lists carry hosts lines and the other way round.
 */

import { COSMETIC_REASON, isBlank, type ParseContext } from "./context.ts";
import {
  HOSTS_BOILERPLATE,
  hostsAddressBlocks,
  isPlainNameAt,
  normalizeName,
} from "./names.ts";

const HASH = 0x23;
/** `##`, `#@#`, `#$#`, `#?#`, `#%#`, `#@$#`, `#@?#`…, matched where a name ends. */
const COSMETIC_MARKER = /#@?[$?%]{0,2}#/y;
const BOILERPLATE_MAX_LENGTH = Math.max(
  ...[...HOSTS_BOILERPLATE].map((name) => name.length),
);
const STAR = 0x2a;
const DOT = 0x2e;

/** Parses the trimmed line body[start, end) of a hosts or domains list. */
export function parsePlainLine(
  ctx: ParseContext,
  start: number,
  end: number,
): void {
  const body = ctx.body;
  // Fast paths, nearly every line of a domains or wildcard list: one scan.
  if (isPlainNameAt(body, start, end) && !isDigit(body.charCodeAt(end - 1))) {
    const name = body.slice(start, end);
    // localhost & co are boilerplate in a domains list as in a hosts file.
    if (!isBoilerplate(name)) ctx.emit("exact", name, "domain", false, false);
    return;
  }
  if (
    body.charCodeAt(start) === STAR && body.charCodeAt(start + 1) === DOT &&
    isPlainNameAt(body, start + 2, end)
  ) {
    ctx.emit("suffix", body.slice(start + 2, end), "wildcard", false, false);
    return;
  }
  let firstEnd = start;
  while (
    firstEnd < end && !isBlank(body.charCodeAt(firstEnd)) &&
    body.charCodeAt(firstEnd) !== HASH
  ) firstEnd++;
  if (firstEnd < end && body.charCodeAt(firstEnd) === HASH) {
    if (isCosmeticMarkerAt(body, firstEnd, end)) {
      // `yahoo.com###LREC` hides an element on yahoo.com; read as
      // "name#why" it blocked the whole site.
      ctx.unsupported(COSMETIC_REASON);
    } else if (firstEnd > start) {
      // "name#why": no name holds a "#", so the rest is a comment (Pi-hole's
      // gravity strips it too).
      parsePlainLine(ctx, start, firstEnd);
    }
    return;
  }
  if (firstEnd === end) {
    // A lone address is a hosts line that lost its names: a rule on
    // "127.0.0.1" would block every answer pointing at localhost. So is a
    // lone sink address (0.0.0.0, 127.0.0.1, ::1) in any list; another
    // address alone outside a hosts list is a rule on answers holding it.
    const blocks = hostsAddressBlocks(body.slice(start, end));
    if (blocks === true || (blocks === false && ctx.stats.format === "hosts")) {
      ctx.invalid("an address without host names");
    } else {
      nameRule(ctx, start, end, false, false);
    }
    return;
  }
  const blocks = isZeroAddressAt(body, start, firstEnd)
    ? true
    : hostsAddressBlocks(body.slice(start, firstEnd));
  if (blocks !== null) {
    hostsNames(ctx, blocks, firstEnd, end);
    return;
  }
  // "name  # why it is listed"
  let next = firstEnd;
  while (next < end && isBlank(body.charCodeAt(next))) next++;
  if (body.charCodeAt(next) === HASH) {
    nameRule(ctx, start, firstEnd, false, false);
    return;
  }
  ctx.invalid("several words, and the first is not an IP address");
}

/**
 * One name token body[start, end) as a rule: `*.x` -> suffix "wildcard",
 * anything else -> exact "domain" (a bare IP address included).
 */
export function nameRule(
  ctx: ParseContext,
  start: number,
  end: number,
  exception: boolean,
  important: boolean,
): void {
  const body = ctx.body;
  const wildcard = body.charCodeAt(start) === STAR &&
    body.charCodeAt(start + 1) === DOT;
  const nameStart = wildcard ? start + 2 : start;
  const name = isPlainNameAt(body, nameStart, end)
    ? body.slice(nameStart, end)
    : normalizeName(body.slice(nameStart, end));
  if (name !== null && !wildcard && isBoilerplate(name)) {
    return; // localhost & co (see parsePlainLine)
  } else if (name !== null) {
    ctx.emit(
      wildcard ? "suffix" : "exact",
      name,
      wildcard ? "wildcard" : "domain",
      exception,
      important,
    );
  } else if (hasStar(body, nameStart, end)) {
    ctx.unsupported("a wildcard inside the name is not supported");
  } else {
    ctx.invalid("not a valid domain name or IP address");
  }
}

/**
 * The names after a hosts line's address. Boilerplate (localhost & co) is
 * skipped; names after a non-blocking address are a rewrite, which this
 * version does not apply: the line counts once as unsupported.
 */
function hostsNames(
  ctx: ParseContext,
  blocks: boolean,
  from: number,
  end: number,
): void {
  const body = ctx.body;
  let pos = from;
  let names = 0;
  let rewritten = 0;
  while (pos < end) {
    while (pos < end && isBlank(body.charCodeAt(pos))) pos++;
    if (pos === end || body.charCodeAt(pos) === HASH) break; // trailing comment
    const start = pos;
    while (
      pos < end && !isBlank(body.charCodeAt(pos)) &&
      body.charCodeAt(pos) !== HASH
    ) pos++;
    names++;
    const name = isPlainNameAt(body, start, pos)
      ? body.slice(start, pos)
      : normalizeName(body.slice(start, pos));
    if (name !== null && isBoilerplate(name)) continue;
    if (!blocks) {
      rewritten++;
    } else if (name !== null) {
      ctx.emit("exact", name, "hosts", false, false);
    } else {
      ctx.invalid(
        `"${body.slice(start, pos).slice(0, 40)}" is not a valid host name`,
      );
    }
  }
  if (names === 0) {
    ctx.invalid("an address without host names");
  } else if (rewritten > 0) {
    ctx.unsupported(
      "a hosts line pointing at a real address is a rewrite, not a block",
    );
  }
}

/**
 * Set lookups hash the freshly sliced name; the length and first-character
 * screen skips that for nearly every real name.
 */
function isBoilerplate(name: string): boolean {
  if (name.length > BOILERPLATE_MAX_LENGTH) return false;
  const first = name.charCodeAt(0);
  if (first !== 0x6c && first !== 0x62 && first !== 0x69 && first !== 0x30) {
    return false; // l b i 0
  }
  return HOSTS_BOILERPLATE.has(name);
}

function isCosmeticMarkerAt(body: string, at: number, end: number): boolean {
  COSMETIC_MARKER.lastIndex = at;
  return COSMETIC_MARKER.test(body) && COSMETIC_MARKER.lastIndex <= end;
}

/** `0.0.0.0`, the address of nearly every hosts line, checked without a substring. */
function isZeroAddressAt(body: string, start: number, end: number): boolean {
  return end - start === 7 && body.charCodeAt(start) === 0x30 &&
    body.charCodeAt(start + 1) === DOT && body.charCodeAt(start + 2) === 0x30 &&
    body.charCodeAt(start + 3) === DOT && body.charCodeAt(start + 4) === 0x30 &&
    body.charCodeAt(start + 5) === DOT && body.charCodeAt(start + 6) === 0x30;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hasStar(body: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (body.charCodeAt(i) === STAR) return true;
  }
  return false;
}
