/**
 * The state one parse carries from line to line: the body, the sink, the
 * counters and examples of ParseStats, and the bounds of the current line.
 * Line handlers work on index ranges of the body so the common line costs
 * one substring (the rule's pattern) and one small RuleInput object.
 */

import type { ParseStats, RuleKind, RuleSink, RuleSyntax } from "../types.ts";

/** How many invalid/unsupported lines ParseStats.examples keeps. */
const MAX_EXAMPLES = 5;
/** How much of a line an example quotes. */
const EXAMPLE_CHARS = 80;

/** What one parse found: ParseStats, and the exceptions it applies more broadly. */
export interface ListParseStats extends ParseStats {
  /**
   * `@@` rules kept for every query although they carry `$dnstype`,
   * `$client` or `$ctag`, which kudurru does not apply yet: they allow a
   * little more than their author meant, where dropping them would block
   * what the author excepted. Applied, so not counted as unsupported; they
   * are among the examples.
   */
  broadenedExceptions: number;
}

/** Why `##`, `#@#`, `#$#`… lines are counted, not applied. */
export const COSMETIC_REASON =
  "element-hiding, scriptlet and HTML rules apply in browsers only";

export class ParseContext {
  readonly stats: ListParseStats;
  /** 1-based number of the line being parsed. */
  line = 0;
  /** Trimmed bounds of the line being parsed, for examples. */
  lineStart = 0;
  lineEnd = 0;
  /** Regular expressions accepted so far (capped by maxRegexes). */
  regexes = 0;
  /**
   * Set while the current line is a `$badfilter` one: its rule goes to the
   * sink's `disable`, not `rule`.
   */
  disabling = false;
  /**
   * Set while the current line is an exception whose `$dnstype`, `$client`
   * or `$ctag` (this modifier) is left out: its rule is counted and quoted.
   */
  broadenedBy: string | null = null;

  constructor(
    readonly body: string,
    private readonly sink: RuleSink,
    readonly maxRegexes: number,
    format: ParseStats["format"],
  ) {
    this.stats = {
      format,
      rules: 0,
      invalid: 0,
      unsupported: 0,
      broadenedExceptions: 0,
      examples: [],
    };
  }

  /** Hands one valid rule to the sink. */
  emit(
    kind: RuleKind,
    pattern: string,
    syntax: RuleSyntax,
    exception: boolean,
    important: boolean,
  ): void {
    const rule = { kind, pattern, syntax, exception, important };
    if (this.disabling) this.sink.disable?.(rule);
    else this.sink.rule(rule);
    this.stats.rules++;
    if (this.broadenedBy !== null) {
      this.stats.broadenedExceptions++;
      this.example(
        `kept as an exception for every query ($${this.broadenedBy} is not applied)`,
      );
    }
  }

  /** The current line (or one name on it) is not a rule of the format. */
  invalid(why: string): void {
    this.stats.invalid++;
    this.example(why);
  }

  /** The current line is a rule this version does not apply. */
  unsupported(why: string): void {
    this.stats.unsupported++;
    this.example(why);
  }

  /** Records an example with its own wording (no quoted line text). */
  invalidWithMessage(message: string): void {
    this.stats.invalid++;
    if (this.stats.examples.length < MAX_EXAMPLES) {
      this.stats.examples.push(`line ${this.line}: ${message}`);
    }
  }

  /** The current line's trimmed text. */
  lineText(): string {
    return this.body.slice(this.lineStart, this.lineEnd);
  }

  private example(why: string): void {
    if (this.stats.examples.length >= MAX_EXAMPLES) return;
    const length = this.lineEnd - this.lineStart;
    const text = length > EXAMPLE_CHARS
      ? this.body.slice(this.lineStart, this.lineStart + EXAMPLE_CHARS - 1) +
        "…"
      : this.lineText();
    this.stats.examples.push(`line ${this.line}: ${text}: ${why}`);
  }
}

/** Space, tab, CR and the other ASCII blanks (a line has no LF). */
export function isBlank(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
