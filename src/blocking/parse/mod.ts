/**
 * The block-list parsers (docs/design.md#blocking-engine): hosts, plain domains
 * and wildcards, adblock (DNS subset) and regex lists, streamed into a
 * RuleSink, plus the "is this a list at all" checks the list fetcher runs on
 * downloads.
 */

export type { ListParseStats } from "./context.ts";
export { decodeListBody, notAListReason } from "./detect.ts";
export { normalizeName } from "./names.ts";
export { DEFAULT_MAX_REGEXES, parseList, type ParseOptions } from "./parse.ts";
export { sniffFormat } from "./sniff.ts";
