/**
 * One list compile, as the compile worker runs it: read every source (an
 * inline text, or a downloaded body from the lists directory), digest the
 * rules first when an earlier compile exists (unchanged rules: nothing to
 * build), else compile them into SharedArrayBuffers. Plain data in and out,
 * so it crosses to and from a Worker by structured clone. Also the list
 * fetcher's counting of a downloaded body (`runCountJob`), which runs in
 * the same worker so a large body is never decoded on the main thread.
 */
import { decodeListBody } from "../blocking/parse/detect.ts";
import { parseList } from "../blocking/parse/parse.ts";
import { createListCompiler } from "../blocking/matcher/compiler.ts";
import { createRuleDigest } from "../blocking/matcher/digest.ts";
import type {
  CompiledListData,
  ListFormat,
  RuleInput,
  RuleSink,
} from "../blocking/types.ts";
import { countRules } from "../blocking/list_counts.ts";
import type { SourceCounts } from "../blocking/list_meta.ts";

/** A source to read: inline text, or a file the list fetcher wrote. */
export interface JobSource {
  /** For warnings: the URL or "inline". */
  label: string;
  format: ListFormat;
  text?: string;
  path?: string;
}

export interface CompileJob {
  id: number;
  meta: { key: string; name: string; mode: "block" | "allow" };
  sources: JobSource[];
  /** The digest of the compile in force; equal rules mean nothing to build. */
  previousDigest?: string;
}

export type CompileResult =
  & { id: number; warnings: string[] }
  & ({ unchanged: true } | { data: CompiledListData });

/** Runs `job`; never throws (a source that fails becomes a warning). */
export function runCompileJob(job: CompileJob): CompileResult {
  const warnings: string[] = [];
  const disabled = disabledRules(job.sources);
  if (job.previousDigest !== undefined) {
    const digest = createRuleDigest({ mode: job.meta.mode });
    feed(job.sources, sinkFor(digest, disabled), warnings);
    if (digest.digest() === job.previousDigest) {
      return { id: job.id, warnings, unchanged: true };
    }
    warnings.length = 0; // the compile pass reports them again
  }
  const compiler = createListCompiler(job.meta, {
    warn: (message) => warnings.push(message),
  });
  feed(job.sources, sinkFor(compiler, disabled), warnings);
  return { id: job.id, warnings, data: compiler.finish() };
}

/**
 * What reaches the compiler: every rule but those a `$badfilter` line of
 * the list named (AdGuard Home). `@@` lines stay exceptions in every mode,
 * so the query log quotes them as written: a list used for allowing (mode
 * allow, or named in allowListRefs) allows on any verdict, an exception's
 * included (src/stages/blocking/list_checks.ts).
 */
function sinkFor(
  sink: RuleSink,
  disabled: ReadonlySet<string>,
): RuleSink {
  if (disabled.size === 0) return sink;
  return {
    rule(r) {
      if (!disabled.has(ruleKey(r))) sink.rule(r);
    },
  };
}

/**
 * The rules the list's `$badfilter` lines switch off, across its sources.
 * Usually none: a source without the word costs a read and a substring
 * test. A source that cannot be read is skipped here; feed reports it.
 */
function disabledRules(sources: JobSource[]): Set<string> {
  const keys = new Set<string>();
  for (const source of sources) {
    let text: string;
    try {
      text = sourceText(source);
    } catch {
      continue;
    }
    if (!text.includes("badfilter")) continue;
    try {
      parseList(text, source.format, {
        rule() {},
        disable: (r) => keys.add(ruleKey(r)),
      });
    } catch {
      // not a list: feed reports it
    }
  }
  return keys;
}

/** A rule told apart from every other: kind, syntax, flags and pattern. */
function ruleKey(r: RuleInput): string {
  const flags = `${r.exception ? "@" : ""}${r.important ? "!" : ""}`;
  return `${r.kind} ${r.syntax} ${flags} ${r.pattern}`;
}

function sourceText(source: JobSource): string {
  return source.text ?? decodeListBody(Deno.readFileSync(source.path ?? ""));
}

function feed(sources: JobSource[], sink: RuleSink, warnings: string[]) {
  for (const source of sources) {
    try {
      const text = sourceText(source);
      parseList(text, source.format, sink);
    } catch (err) {
      // A source that cannot be read or is not a list costs that source
      // only; the fetcher keeps the last good body on disk.
      const why = err instanceof Error ? err.message : String(err);
      warnings.push(`Cannot use block list source ${source.label}: ${why}`);
    }
  }
}

/** Count the rules of a body on disk, read as each of `formats`. */
export interface CountJob {
  id: number;
  count: { path: string; formats: ListFormat[] };
}

export type CountResult =
  | { id: number; counts: Partial<Record<ListFormat, SourceCounts>> }
  /** The body cannot be read, or is not a list (HTML, binary). */
  | { id: number; error: string };

/** Runs `job`; never throws. */
export function runCountJob(job: CountJob): CountResult {
  try {
    const text = decodeListBody(Deno.readFileSync(job.count.path));
    const counts: Partial<Record<ListFormat, SourceCounts>> = {};
    for (const format of new Set(job.count.formats)) {
      counts[format] = countRules(text, format);
    }
    return { id: job.id, counts };
  } catch (err) {
    return {
      id: job.id,
      error: err instanceof Error ? err.message : String(err),
    };
  }
}
