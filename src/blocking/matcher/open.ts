/**
 * Opens compiled lists in the current thread, once: the same data object,
 * or data with the same digest (a worker receives a fresh structured clone
 * with every snapshot), returns the same ListMatcher, so regexes are
 * compiled once per thread and per list content. Entries go when their
 * matcher is garbage-collected.
 *
 * A matcher found by digest keeps reading the buffers of the data it was
 * first opened from; a caller that recompiles unchanged rules would hold
 * both copies, which is why it should compare createRuleDigest() first and
 * keep the CompiledListData it already has.
 */

import type { CompiledListData, ListMatcher } from "../types.ts";
import { asMatcherData } from "./layout.ts";
import { CompiledMatcher } from "./matcher.ts";
import { RegexIndex } from "./regex_index.ts";

const byData = new WeakMap<CompiledListData, ListMatcher>();
/** "digest key name" → matcher (the digest covers the rules and the mode). */
const byContent = new Map<string, WeakRef<ListMatcher>>();
/** digest → compiled regexes, shared by lists with the same rules. */
const regexByDigest = new Map<string, WeakRef<RegexIndex>>();

const forget = new FinalizationRegistry<
  { map: Map<string, WeakRef<object>>; key: string }
>(
  ({ map, key }) => {
    if (map.get(key)?.deref() === undefined) map.delete(key);
  },
);

/** A ListMatcher for `data`, memoised per thread (see the file comment). */
export function openCompiledList(data: CompiledListData): ListMatcher {
  const known = byData.get(data);
  if (known !== undefined) return known;
  if (typeof data.digest !== "string") {
    throw new TypeError("compiled list data without a digest");
  }
  const layout = asMatcherData(data.data);
  const contentKey = `${data.digest} ${data.key} ${data.name}`;
  let matcher = byContent.get(contentKey)?.deref();
  if (matcher === undefined) {
    let regex: RegexIndex | null = null;
    if (layout.regex !== null) {
      regex = regexByDigest.get(data.digest)?.deref() ?? null;
      if (regex === null) {
        regex = new RegexIndex(layout.regex);
        regexByDigest.set(data.digest, new WeakRef(regex));
        forget.register(regex, { map: regexByDigest, key: data.digest });
      }
    }
    matcher = new CompiledMatcher(
      data.key,
      data.name,
      data.mode,
      data.digest,
      layout,
      regex,
    );
    byContent.set(contentKey, new WeakRef(matcher));
    forget.register(matcher, { map: byContent, key: contentKey });
  }
  byData.set(data, matcher);
  return matcher;
}
