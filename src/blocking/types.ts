/**
 * The contracts of the blocking engine (docs/design.md#blocking-engine): what
 * the list parsers emit, what the compiler turns that into, and how the data
 * plane asks "is this name blocked, and by which rule?".
 *
 * Parsers never build an object per rule: they call a RuleSink, so a
 * 3-million-line list streams straight into the compiler's buffers.
 */

/** How a rule matches a name. */
export type RuleKind =
  /** The name itself only (plain domains, hosts lines, bare IPs). */
  | "exact"
  /** The name and every name below it (`||x^`, `||x`, `*.x`). */
  | "suffix"
  /** A JavaScript regular expression over the name without its trailing dot. */
  | "regex";

/**
 * The syntax a rule was written in, kept so a match can print the rule the
 * way its list wrote it ("why was this blocked").
 */
export type RuleSyntax =
  /** `ads.example` */
  | "domain"
  /** `0.0.0.0 ads.example` (whatever blocking address the line used prints as 0.0.0.0) */
  | "hosts"
  /** `||ads.example^` (also `||ads.example`, `@@||…^`, `…$important`) */
  | "adblock"
  /** `*.ads.example` */
  | "wildcard"
  /** `/ads[0-9]+\.example/` */
  | "regex";

/** One rule as the compiler takes it. */
export interface RuleInput {
  kind: RuleKind;
  /**
   * For exact and suffix rules: the name in lowercase ASCII (IDNs in
   * punycode), without a trailing dot, e.g. "ads.example.com"; a bare IP
   * address is an exact rule on its text ("192.0.2.1", "2001:db8::1").
   * For regex rules: the expression's source without the slashes.
   */
  pattern: string;
  syntax: RuleSyntax;
  /** An `@@` exception: allows the name within its own list. */
  exception: boolean;
  /** `$important`: beats an exception of the same list. */
  important: boolean;
}

/** Where parsers put what they read. */
export interface RuleSink {
  /** One valid rule. */
  rule(rule: RuleInput): void;
  /**
   * An adblock `$badfilter` line: the same rule without the modifier is
   * switched off in this list (AdGuard Home). Sinks that do not care leave
   * it out.
   */
  disable?(rule: RuleInput): void;
}

/** The syntaxes a source can have; "auto" sniffs it from the body. */
export type ListFormat = "auto" | "hosts" | "domains" | "adblock" | "regex";

/** What parsing one source found (BlockList.status.sources[]). */
export interface ParseStats {
  /** The format used: the declared one, or what "auto" decided. */
  format: Exclude<ListFormat, "auto">;
  /** Valid rules handed to the sink. */
  rules: number;
  /** Lines that are not rules of the format (garbage, bad names, bad regexes). */
  invalid: number;
  /**
   * Rules that parse but this version does not apply: adblock modifiers
   * other than `$important`, hosts lines pointing at a real address
   * (rewrites), mid-pattern wildcards. Ignored, so browser lists are safe.
   */
  unsupported: number;
  /** Up to 5 examples of invalid or unsupported lines: "line 12: <text>: <why>". */
  examples: string[];
  /** The list's `! Title:` (or `# Title:`) line, when it has one. */
  title?: string;
}

/**
 * A body that is not a list at all (an HTML error page, a binary file):
 * the whole source is rejected and the last good rules stay in force.
 */
export class NotAListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotAListError";
  }
}

/**
 * One BlockList compiled for lookup: plain data, so posting it to a worker
 * by structured clone shares its SharedArrayBuffers instead of copying them
 * (one copy per process, docs/design.md#threads). Opaque outside the matcher.
 */
export interface CompiledListData {
  /** "namespace/name" of the BlockList. */
  key: string;
  /** Shown in answers and the query log: the list's name. */
  name: string;
  mode: "block" | "allow";
  /**
   * Identifies the compiled content (a hash of the normalised rules): equal
   * digests mean equal matchers, so workers and the compiler reuse them.
   */
  digest: string;
  /** Exact plus suffix plus regex rules compiled. */
  ruleCount: number;
  /** The matcher's own layout; only src/blocking/matcher reads it. */
  data: unknown;
  /**
   * BlockList.spec.response: how this list's blocks are answered, beating
   * the Policy's blockMode. Set by the snapshot assembler, not the compiler.
   */
  response?: {
    mode: "zeroIP" | "nxdomain" | "customIP" | "refused";
    customIPs: string[];
  };
}

/** What matched a name. */
export interface RuleMatch {
  /** The rule as its list wrote it, e.g. "||ads.example^" or "0.0.0.0 ads.example". */
  rule: string;
  exception: boolean;
  important: boolean;
}

/** The verdict of one list on one name. */
export interface ListVerdict {
  /**
   * "matched": a rule matched and no exception of this list overrides it;
   * "excepted": an `@@` exception of this list matched and no `$important`
   * rule beats it, whether or not another rule of the list matched (an `@@`
   * line alone is AdGuard Home's allowlist entry). The blocking stage reads
   * them: a block list blocks on "matched" only; a list used for allowing
   * allows on either.
   */
  outcome: "matched" | "excepted";
  /** The deciding rule: the matching rule, or the exception that won. */
  rule: string;
}

/** A compiled list opened in one thread; cheap to call from the query path. */
export interface ListMatcher {
  readonly key: string;
  readonly name: string;
  readonly mode: "block" | "allow";
  readonly digest: string;
  /**
   * The list's verdict on `name` (lowercase, with or without the trailing
   * dot), or null when no rule matches. Exact, suffix (the name and its
   * parents) and regex rules all apply. Allocates nothing on a miss.
   */
  check(name: string): ListVerdict | null;
}
