/**
 * The digest of a list's normalised rules: equal digests mean equal
 * matchers, so a caller can skip recompiling a list whose rules did not
 * change (only a comment or a timestamp line did) and workers can reuse what
 * they opened. It hashes every rule in arrival order (kind, pattern, syntax,
 * flags), then the mode, the regex cap and the layout format, into 64 bits
 * from two independent 32-bit lanes: a few multiplies per character, no
 * cryptographic hash per rule. It guards against accidents, not attackers:
 * whoever writes a list decides its rules anyway.
 */

import type { RuleInput, RuleKind, RuleSink, RuleSyntax } from "../types.ts";
import { LAYOUT_FORMAT } from "./layout.ts";

const KIND_CODE: Record<RuleKind, number> = { exact: 1, suffix: 2, regex: 3 };
const SYNTAX_CODE: Record<RuleSyntax, number> = {
  domain: 1,
  hosts: 2,
  adblock: 3,
  wildcard: 4,
  regex: 5,
};

/**
 * The default of CompileOptions.regexHardCap (docs/design.md#blocking-engine).
 */
export const DEFAULT_REGEX_HARD_CAP = 1000;

/** murmur3's finaliser: spreads every input bit over the word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/** Accumulates the digest rule by rule; used by the compiler and createRuleDigest. */
export class RuleDigester {
  private a = 0x243f6a88;
  private b = 0x85a308d3 | 0;
  private count = 0;

  add(rule: RuleInput): void {
    // Per rule: hash its fields into (x, y), then fold them into the running
    // state in an order-sensitive way (rotate, multiply, add).
    const head = (KIND_CODE[rule.kind] ?? 0) |
      ((SYNTAX_CODE[rule.syntax] ?? 0) << 4) |
      (rule.exception ? 0x100 : 0) | (rule.important ? 0x200 : 0);
    const pattern = rule.pattern;
    let x = Math.imul(head ^ 0x9e3779b9, 0x01000193);
    let y = Math.imul(head ^ 0x7f4a7c15, 0x5bd1e995);
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern.charCodeAt(i);
      x = Math.imul(x ^ c, 0x01000193);
      y = Math.imul((y << 5 | y >>> 27) ^ c, 0x5bd1e995);
    }
    x = fmix32(x ^ pattern.length);
    y = fmix32(y + pattern.length);
    this.a = Math.imul((this.a << 13 | this.a >>> 19) ^ x, 5) + 0xe6546b64 | 0;
    this.b =
      Math.imul((this.b << 15 | this.b >>> 17) ^ y, 0x1b873593) + 0x38495ab5 |
      0;
    this.count++;
  }

  /** The digest of the rules so far for a list of `mode` compiled with `regexHardCap`. */
  digest(mode: "block" | "allow", regexHardCap: number): string {
    const tail = `${LAYOUT_FORMAT}|${mode}|${regexHardCap}`;
    let a = this.a, b = this.b;
    for (let i = 0; i < tail.length; i++) {
      a = Math.imul(a ^ tail.charCodeAt(i), 0x01000193);
      b = Math.imul((b << 5 | b >>> 27) ^ tail.charCodeAt(i), 0x5bd1e995);
    }
    a = fmix32(a ^ this.count);
    b = fmix32(b ^ Math.imul(this.count, 0x9e3779b1));
    // Cross the lanes once more so neither half alone decides the result.
    const hi = fmix32(a + Math.imul(b, 3));
    const lo = fmix32(b ^ Math.imul(a, 7));
    return hex8(hi) + hex8(lo);
  }
}

/**
 * A sink that only computes the digest `finish()` would put in
 * CompiledListData.digest for the same rules, mode and options, without
 * building anything. Parse the body into it, compare, and compile only when
 * the digest changed.
 */
export function createRuleDigest(
  meta: { mode: "block" | "allow" },
  opts?: { regexHardCap?: number },
): RuleSink & { digest(): string } {
  const digester = new RuleDigester();
  const cap = normaliseRegexHardCap(opts?.regexHardCap);
  return {
    rule: (rule: RuleInput) => digester.add(rule),
    digest: () => digester.digest(meta.mode, cap),
  };
}

/** The effective regex cap: a whole number ≥ 0, DEFAULT_REGEX_HARD_CAP when unset. */
export function normaliseRegexHardCap(cap: number | undefined): number {
  if (cap === undefined || !Number.isFinite(cap) || cap < 0) {
    return DEFAULT_REGEX_HARD_CAP;
  }
  return Math.floor(cap);
}
