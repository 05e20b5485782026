/**
 * The list compiler: a RuleSink the parsers stream rules into, and
 * `finish()`, which lays the list out for lookup (layout.ts) and returns
 * CompiledListData. Bad rules never throw: they are skipped, counted and
 * reported through `opts.warn` once per list, with an example.
 */

import type { CompiledListData, RuleInput, RuleSink } from "../types.ts";
import { normaliseRegexHardCap, RuleDigester } from "./digest.ts";
import {
  KIND_EXACT,
  KIND_SUFFIX,
  LAYOUT_FORMAT,
  type MatcherData,
  roleOf,
  SYNTAX_CODES,
  SYNTAX_REGEX,
} from "./layout.ts";
import { nameProblem, NodeTableBuilder } from "./node_table.ts";
import { RegexCollector } from "./regex_collect.ts";

/** Which list is being compiled. */
export interface ListMeta {
  /** "namespace/name" of the BlockList. */
  key: string;
  name: string;
  mode: "block" | "allow";
}

export interface CompileOptions {
  /** Regex rules kept per list; further ones are dropped with a warning. Default 1000. */
  regexHardCap?: number;
  /** Receives one line per problem worth an operator's attention. */
  warn?: (message: string) => void;
}

export interface ListCompiler extends RuleSink {
  /** Builds the compiled list; call once, after the last rule. */
  finish(): CompiledListData;
}

const MAX_SKIP_EXAMPLES = 3;

class Compiler implements ListCompiler {
  private readonly digester = new RuleDigester();
  private readonly nodes = new NodeTableBuilder();
  private readonly regexes: RegexCollector;
  private readonly regexHardCap: number;
  private skipped = 0;
  private readonly skipExamples: string[] = [];
  private finished = false;

  constructor(
    private readonly meta: ListMeta,
    private readonly opts: CompileOptions,
  ) {
    this.regexHardCap = normaliseRegexHardCap(opts.regexHardCap);
    this.regexes = new RegexCollector(this.regexHardCap);
  }

  rule(rule: RuleInput): void {
    if (this.finished) throw new Error("ListCompiler.rule() after finish()");
    this.digester.add(rule);
    const role = roleOf(rule.exception === true, rule.important === true);
    if (rule.kind === "regex") {
      const added = this.regexes.add(rule.pattern, role);
      if (typeof added === "object") {
        this.skip(`/${rule.pattern}/`, added.invalid);
      }
      return;
    }
    const kind = rule.kind === "exact"
      ? KIND_EXACT
      : rule.kind === "suffix"
      ? KIND_SUFFIX
      : -1;
    const syntax = SYNTAX_CODES[rule.syntax];
    if (kind < 0 || syntax === undefined || syntax === SYNTAX_REGEX) {
      this.skip(rule.pattern, `kind ${rule.kind} with syntax ${rule.syntax}`);
      return;
    }
    let name = rule.pattern;
    if (name.charCodeAt(name.length - 1) === 46) name = name.slice(0, -1);
    let problem = nameProblem(name);
    if (problem === "an uppercase letter") {
      name = name.toLowerCase(); // patterns should be lowercase; forgive it
      problem = nameProblem(name);
    }
    if (problem !== null) {
      this.skip(rule.pattern, problem);
      return;
    }
    this.nodes.add(name, kind, role, syntax);
  }

  finish(): CompiledListData {
    if (this.finished) throw new Error("ListCompiler.finish() called twice");
    this.finished = true;
    const warn = this.opts.warn;
    if (warn !== undefined) {
      if (this.skipped > 0) {
        warn(
          `list ${this.meta.key}: ${this.skipped} rules skipped, e.g. ` +
            this.skipExamples.join("; "),
        );
      }
      for (const message of this.regexes.warnings(this.meta.key)) warn(message);
    }
    const built = this.nodes.build();
    const data: MatcherData = {
      format: LAYOUT_FORMAT,
      seed: built.seed,
      capacity: built.capacity,
      nodes: built.nodes,
      slots: built.slots,
      labels: built.labels,
      labelBytes: built.labelBytes,
      regex: this.regexes.data(),
    };
    return {
      key: this.meta.key,
      name: this.meta.name,
      mode: this.meta.mode,
      digest: this.digester.digest(this.meta.mode, this.regexHardCap),
      ruleCount: this.nodes.rules + this.regexes.count,
      data,
    };
  }

  private skip(pattern: string, why: string): void {
    this.skipped++;
    if (this.skipExamples.length < MAX_SKIP_EXAMPLES) {
      const shown = pattern.length > 80 ? pattern.slice(0, 79) + "…" : pattern;
      this.skipExamples.push(`${JSON.stringify(shown)}: ${why}`);
    }
  }
}

/** A compiler for one list; stream rules into it, then call finish(). */
export function createListCompiler(
  meta: ListMeta,
  opts: CompileOptions = {},
): ListCompiler {
  return new Compiler(meta, opts);
}

/** Compiles a whole rule sequence at once. */
export function compileRules(
  meta: ListMeta,
  rules: Iterable<RuleInput>,
  opts: CompileOptions = {},
): CompiledListData {
  const compiler = createListCompiler(meta, opts);
  for (const rule of rules) compiler.rule(rule);
  return compiler.finish();
}
