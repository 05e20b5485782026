/**
 * ListMatcher over one compiled list (layout.ts): the query path's
 * "is this name in this list, and by which rule?".
 *
 * The name is walked right to left, label by label, hashing each label's
 * characters once and probing the node table with (parent slot, label),
 * comparing the label packed in the slot (long ones: plus their stored
 * tail) against charCodeAt: no slicing, no allocation.
 * The walk stops at the first label with no node (nothing deeper can
 * exist), so most misses end after one or two probes. Suffix rules are
 * noted at every level, exact rules at the last; deeper levels overwrite
 * shallower ones, so the most specific rule is the one reported. Regex
 * rules run only when the hash walk leaves the verdict open (they see the
 * name without its trailing dot, which costs one slice when one must run).
 *
 * Verdict (within one list): an `$important` rule beats
 * exceptions unless an important exception matches too; otherwise any
 * matching exception makes the verdict "excepted", whether or not a rule
 * of the list matched (an `@@` line alone is AdGuard Home's allowlist
 * entry; the stage decides what it means next to the other lists, so a
 * list with regex exceptions runs them on misses too). Candidates are
 * picked exact > suffix (deepest first) > regex (arrival order); on one
 * node an important exception is preferred.
 */

import type { ListMatcher, ListVerdict } from "../types.ts";
import { homeSlot, labelHashStart, labelHashStep } from "./hash.ts";
import {
  INLINE_LABEL,
  LEN_BITS,
  LEN_MASK,
  type MatcherData,
  MAX_LABEL,
  MAX_NAME,
  packChars,
  ROLE_BLOCK,
  ROLE_EXCEPTION,
  ROLE_EXCEPTION_IMPORTANT,
  ROLE_IMPORTANT,
  ROOT,
  SLOT_WORDS,
  SYNTAX_REGEX,
} from "./layout.ts";
import type { RegexIndex } from "./regex_index.ts";
import { ruleText } from "./rule_text.ts";

const DOT = 46;
const NONE = -1;
/**
 * A candidate is a number: for a node rule, the start of the matched name
 * in the query | syntax << 16 | role << 19; for a regex, REGEX_TAG | id.
 */
const REGEX_TAG = 1 << 24;
const BIT_BLOCK = 1 << ROLE_BLOCK;
const BIT_IMPORTANT = 1 << ROLE_IMPORTANT;
const BIT_EXCEPTIONS = (1 << ROLE_EXCEPTION) | (1 << ROLE_EXCEPTION_IMPORTANT);
const BIT_IMPORTANT_EXCEPTION = 1 << ROLE_EXCEPTION_IMPORTANT;

/**
 * The walk's candidates, in module scope so a lookup allocates nothing:
 * [0] block, [1] important, [2] any exception, [3] important exception.
 * check() is synchronous, so no two lookups share them at once.
 */
const found = new Int32Array(4);
/** The node slot of each candidate in `found` (the key of its cached verdict). */
const foundSlot = new Int32Array(4);

/** Notes the rules of one kind on the node (`slot`) whose name starts at `start`. */
function note(fields: number, start: number, slot: number): void {
  let syntax = fields & 7;
  if (syntax !== 0) {
    found[0] = start | (syntax << 16) | (ROLE_BLOCK << 19);
    foundSlot[0] = slot;
  }
  syntax = (fields >>> 3) & 7;
  if (syntax !== 0) {
    found[1] = start | (syntax << 16) | (ROLE_IMPORTANT << 19);
    foundSlot[1] = slot;
  }
  syntax = (fields >>> 9) & 7;
  if (syntax !== 0) {
    found[3] = found[2] = start | (syntax << 16) |
      (ROLE_EXCEPTION_IMPORTANT << 19);
    foundSlot[3] = foundSlot[2] = slot;
  } else {
    syntax = (fields >>> 6) & 7;
    if (syntax !== 0) {
      found[2] = start | (syntax << 16) | (ROLE_EXCEPTION << 19);
      foundSlot[2] = slot;
    }
  }
}

/**
 * Verdicts kept per matcher so repeated hits allocate nothing: a verdict
 * depends only on the node, the rule's syntax and role, and the outcome.
 * Bounded; cleared when full (hot names come back at once).
 */
const VERDICT_CACHE_ENTRIES = 65_536;

export class CompiledMatcher implements ListMatcher {
  private readonly slots: Int32Array;
  private readonly labels: Uint8Array;
  private readonly capacity: number;
  private readonly seed: number;
  private readonly verdicts = new Map<number, ListVerdict>();

  constructor(
    readonly key: string,
    readonly name: string,
    readonly mode: "block" | "allow",
    readonly digest: string,
    data: MatcherData,
    private readonly regex: RegexIndex | null,
  ) {
    this.slots = new Int32Array(data.slots);
    this.labels = new Uint8Array(data.labels);
    this.capacity = data.capacity;
    this.seed = data.seed;
  }

  check(name: string): ListVerdict | null {
    let end = name.length;
    if (end > 0 && name.charCodeAt(end - 1) === DOT) end--;
    if (end > MAX_NAME) return null; // not a DNS name; no rule can name it
    found[0] =
      found[1] =
      found[2] =
      found[3] =
        NONE;
    this.walk(name, end);
    const regex = this.regex;
    // Regexes see the name without its trailing dot; slice only if one runs.
    let subject: string | null = null;

    let important = found[1]!;
    if (
      important === NONE && regex !== null &&
      (regex.roleMask & BIT_IMPORTANT) !== 0
    ) {
      important = tagRegex(
        regex.first(subject ??= trimmed(name, end), BIT_IMPORTANT),
      );
    }
    if (important !== NONE) {
      let exception = found[3]!;
      if (
        exception === NONE && regex !== null &&
        (regex.roleMask & BIT_IMPORTANT_EXCEPTION) !== 0
      ) {
        exception = tagRegex(
          regex.first(subject ??= trimmed(name, end), BIT_IMPORTANT_EXCEPTION),
        );
      }
      return exception !== NONE
        ? this.verdict("excepted", exception, name, end, foundSlot[3]!)
        : this.verdict("matched", important, name, end, foundSlot[1]!);
    }
    let block = found[0]!;
    if (
      block === NONE && regex !== null && (regex.roleMask & BIT_BLOCK) !== 0
    ) {
      block = tagRegex(regex.first(subject ??= trimmed(name, end), BIT_BLOCK));
    }
    let exception = found[2]!;
    if (
      exception === NONE && regex !== null &&
      (regex.roleMask & BIT_EXCEPTIONS) !== 0
    ) {
      exception = tagRegex(
        regex.first(subject ??= trimmed(name, end), BIT_EXCEPTIONS),
      );
    }
    // An exception with no block rule of its own still answers "excepted":
    // the stage reads it as "allowlisted" when no other list blocks.
    if (exception !== NONE) {
      return this.verdict("excepted", exception, name, end, foundSlot[2]!);
    }
    return block === NONE
      ? null
      : this.verdict("matched", block, name, end, foundSlot[0]!);
  }

  /** Walks name[0, end) right to left through the node table, noting rules. */
  private walk(name: string, end: number): void {
    const slots = this.slots, capacity = this.capacity;
    let parent = ROOT;
    let labelEnd = end;
    while (labelEnd > 0) {
      let h = labelHashStart(this.seed, parent);
      let ascii = 0;
      let i = labelEnd - 1;
      for (; i >= 0; i--) {
        const c = name.charCodeAt(i);
        if (c === DOT) break;
        h = labelHashStep(h, c);
        ascii |= c;
      }
      const start = i + 1;
      const length = labelEnd - start;
      if (length === 0 || length > MAX_LABEL) return;
      if (ascii > 0x7f) return; // stored labels are ASCII; packing needs it too
      let slot = homeSlot(h, length, capacity);
      let word = 0;
      for (;;) {
        const base = slot * SLOT_WORDS;
        word = slots[base + 1]!;
        if (word === 0) return; // no such node: nothing below it either
        if (
          (word & LEN_MASK) === length && slots[base] === parent &&
          this.sameLabel(base, name, start, length)
        ) break;
        if (++slot === capacity) slot = 0;
      }
      const fields = word >>> LEN_BITS;
      if (fields !== 0) {
        if ((fields >>> 12) !== 0) note(fields >>> 12, start, slot); // suffix rules
        if (start === 0 && (fields & 0xfff) !== 0) {
          note(fields & 0xfff, start, slot); // exact
        }
      }
      parent = slot;
      labelEnd = start - 1;
    }
  }

  /** Whether the label in the slot at `base` is name[start, start + length). */
  private sameLabel(
    base: number,
    name: string,
    start: number,
    length: number,
  ): boolean {
    const slots = this.slots;
    if (packChars(name, start, length < 4 ? length : 4) !== slots[base + 2]) {
      return false;
    }
    if (length <= 4) return true;
    if (length <= INLINE_LABEL) {
      return packChars(name, start + 4, length - 4) === slots[base + 3];
    }
    const labels = this.labels;
    const tail = slots[base + 3]! - 4;
    for (let k = 4; k < length; k++) {
      if (labels[tail + k] !== name.charCodeAt(start + k)) return false;
    }
    return true;
  }

  /**
   * The verdict for a candidate, from the cache when this node (or regex),
   * rule and outcome answered before. Cached verdicts are frozen and shared.
   */
  private verdict(
    outcome: "matched" | "excepted",
    candidate: number,
    name: string,
    end: number,
    slot: number,
  ): ListVerdict {
    const isRegex = (candidate & REGEX_TAG) !== 0;
    // Node keys are >= 0, regex keys < 0; the low 6 bits hold the syntax,
    // the role and the outcome.
    const rule = isRegex ? 0 : candidate >>> 16;
    const key = (isRegex ? -1 - (candidate & (REGEX_TAG - 1)) : slot) * 64 +
      ((rule & 31) << 1) + (outcome === "matched" ? 1 : 0);
    const known = this.verdicts.get(key);
    if (known !== undefined) return known;
    let text: string;
    if (isRegex) {
      const id = candidate & (REGEX_TAG - 1);
      const regex = this.regex!;
      text = ruleText(SYNTAX_REGEX, regex.roles[id]!, regex.sources[id]!);
    } else {
      const start = candidate & 0xffff;
      text = ruleText(rule & 7, (rule >>> 3) & 3, name.slice(start, end));
    }
    const verdict = Object.freeze({ outcome, rule: text });
    if (this.verdicts.size >= VERDICT_CACHE_ENTRIES) this.verdicts.clear();
    this.verdicts.set(key, verdict);
    return verdict;
  }
}

function trimmed(name: string, end: number): string {
  return end === name.length ? name : name.slice(0, end);
}

function tagRegex(id: number): number {
  return id < 0 ? NONE : REGEX_TAG | id;
}
