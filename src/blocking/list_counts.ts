/**
 * Counts what a list body holds, for BlockList.status.sources[]: the body is
 * parsed with a sink that keeps nothing, so counting a 3-million-line list
 * costs one pass and no rule objects.
 */
import { parseList } from "./parse/parse.ts";
import type { ListFormat, RuleSink } from "./types.ts";
import type { SourceCounts } from "./list_meta.ts";

const DISCARD: RuleSink = { rule() {} };

/**
 * Rules, invalid and unsupported lines and the title of `text` read as
 * `format`. Throws NotAListError when the text is HTML or binary.
 */
export function countRules(text: string, format: ListFormat): SourceCounts {
  const stats = parseList(text, format, DISCARD);
  return {
    format: stats.format,
    ruleCount: stats.rules,
    invalid: stats.invalid,
    unsupported: stats.unsupported,
    ...(stats.title ? { title: stats.title } : {}),
    ...(stats.examples.length > 0
      ? { examples: stats.examples.slice(0, 5).map((e) => e.slice(0, 512)) }
      : {}),
  };
}
