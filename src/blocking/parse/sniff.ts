/**
 * Format "auto": decide a list's syntax from its first rule lines by
 * majority vote. Hosts lines start with an IP address and a blank; adblock
 * lines with `||`, `@@`, `|`, or are `/…/` (AdGuard's regex rules; `!`
 * comments vote adblock too); lines full of regex operators are regular
 * expressions (Pi-hole writes them without slashes); names, `*.x`
 * included, are a plain domain list. A ` # comment` after a rule is left out
 * of the vote: its brackets are no regex.
 *
 * Browser lists (EasyList) need more than a vote: their URL fragments
 * (`-ad-banner-`, `/ad_banner.`) look like names, and read as a domains
 * list `yahoo.com###LREC` became a block on yahoo.com. So an
 * `[Adblock Plus 2.0]`-style header or one cosmetic rule decides "adblock"
 * outright, and a line with URL characters never votes "domains".
 */

import type { ListFormat } from "../types.ts";
import { isBlank } from "./context.ts";
import { hostsAddressBlocks } from "./names.ts";

type Format = Exclude<ListFormat, "auto">;

/** Rule lines that take part in the vote. */
const SAMPLE_LINES = 200;
/** Bound on all lines looked at, so a huge comment block cannot stall the sniff. */
const MAX_SCANNED_LINES = 20_000;

/** `[Adblock Plus 2.0]`, `[uBlock Origin]`, `[AdGuard]`: the list says what it is. */
const ADBLOCK_HEADER = /^\[\s*(adblock|ublock|adguard)\b[^\]]*\]$/i;
/** `##`, `#@#`, `#$#`, `#?#`, `#%#`, `#@$#`, `#@?#`…: a cosmetic rule's marker. */
const COSMETIC = /#@?[$?%]{0,2}#/;
/**
 * A cosmetic rule for every site (`##.ad`, `##[id^="ad"]`, `#@#.ad`,
 * `#$#abort…`), told apart from `##`/`###` comment banners of hosts files.
 */
const GENERIC_COSMETIC =
  /^#@?[$?%]{0,2}#[.[]|^#(@[$?%]{0,2}|[$?%]{1,2})#[^\s#]/;
const MODIFIER = /\$~?[a-z-]+(=|,|$)/;
const NAME_LIKE = /^[\p{L}\p{N}._-]+$/u;
const WILDCARD_NAME = /^\*\.[\p{L}\p{N}._-]+$/u;
/** Operators no URL fragment or name carries: the line is an expression. */
const REGEX_SYNTAX = /[\\()[\]{}+|]|^\^|\$$/;
const REGEX_OPERATORS = /[\\^$()[\]{}+?|]/;
/** URL characters, or a name-like fragment cut out of a URL (`-ad-banner-`, `.ads.`, `_ad_`). */
const URL_FRAGMENT = /[/&=?*]|^[-._]/;
const TRAILING_COMMENT = /\s#.*$/s;

/** The format "auto" resolves to for this body. */
export function sniffFormat(body: string): Format {
  const votes: Record<Format, number> = {
    adblock: 0,
    hosts: 0,
    regex: 0,
    domains: 0,
  };
  let sampled = 0;
  let scanned = 0;
  let pos = 0;
  while (
    pos < body.length && sampled < SAMPLE_LINES && scanned < MAX_SCANNED_LINES
  ) {
    let end = body.indexOf("\n", pos);
    if (end < 0) end = body.length;
    const line = body.slice(pos, end).trim();
    pos = end + 1;
    scanned++;
    if (line.length === 0) continue;
    if (ADBLOCK_HEADER.test(line) || GENERIC_COSMETIC.test(line)) {
      return "adblock";
    }
    if (line.startsWith("#")) continue;
    if (line.startsWith("!")) {
      votes.adblock++; // adblock's comment marker: evidence, but not a sampled rule
      continue;
    }
    const rule = line.replace(TRAILING_COMMENT, "");
    if (COSMETIC.test(rule)) return "adblock"; // yahoo.com###LREC
    votes[classifyLine(rule)]++;
    sampled++;
  }
  // Ties go to the more specific syntax (later in this order); no votes at all: domains.
  let best: Format = "domains";
  for (const format of ["regex", "hosts", "adblock"] as const) {
    if (votes[format] > 0 && votes[format] >= votes[best]) best = format;
  }
  return best;
}

/** The syntax one non-comment line looks like. */
export function classifyLine(line: string): Format {
  if (line.startsWith("|") || line.startsWith("@@")) return "adblock";
  if (line.startsWith("[") && line.endsWith("]")) return "adblock"; // [Adblock Plus 2.0]
  if (line.length > 2 && line.startsWith("/") && line.endsWith("/")) {
    return "adblock"; // the adblock parser reads `/re/` as a regex rule
  }
  let firstEnd = 0;
  while (firstEnd < line.length && !isBlank(line.charCodeAt(firstEnd))) {
    firstEnd++;
  }
  if (
    firstEnd < line.length &&
    hostsAddressBlocks(line.slice(0, firstEnd)) !== null
  ) {
    return "hosts";
  }
  if (COSMETIC.test(line) || line.endsWith("^") || MODIFIER.test(line)) {
    return "adblock";
  }
  if (WILDCARD_NAME.test(line)) return "domains";
  if (REGEX_SYNTAX.test(line)) return "regex";
  // `&ad_type=`, `/ad_banner.`, `-ad-banner-`: read as names, they were rules.
  if (URL_FRAGMENT.test(line)) return "adblock";
  if (NAME_LIKE.test(line)) return "domains";
  if (REGEX_OPERATORS.test(line)) return "regex";
  return "domains";
}
