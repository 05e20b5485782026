/**
 * One list compile, as the compile worker runs it: read every source (an
 * inline text, or a downloaded body from the lists directory), digest the
 * rules first when an earlier compile exists (unchanged rules: nothing to
 * build), else compile them into SharedArrayBuffers. Plain data in and out,
 * so it crosses to and from a Worker by structured clone.
 */
import { decodeListBody, parseList } from "../blocking/parse/mod.ts";
import {
  createListCompiler,
  createRuleDigest,
} from "../blocking/matcher/mod.ts";
import type {
  CompiledListData,
  ListFormat,
  RuleSink,
} from "../blocking/types.ts";

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
  if (job.previousDigest !== undefined) {
    const digest = createRuleDigest({ mode: job.meta.mode });
    feed(job.sources, sinkFor(job, digest), warnings);
    if (digest.digest() === job.previousDigest) {
      return { id: job.id, warnings, unchanged: true };
    }
    warnings.length = 0; // the compile pass reports them again
  }
  const compiler = createListCompiler(job.meta, {
    warn: (message) => warnings.push(message),
  });
  feed(job.sources, sinkFor(job, compiler), warnings);
  return { id: job.id, warnings, data: compiler.finish() };
}

/**
 * In an allow list every rule allows: an `@@` line (how AdGuard Home users
 * write allowlists) is an allow rule like a plain one, not an exception
 * that would need a block rule of the same list to act on.
 */
function sinkFor(job: CompileJob, sink: RuleSink): RuleSink {
  if (job.meta.mode !== "allow") return sink;
  return {
    rule: (r) =>
      sink.rule(
        r.exception || r.important
          ? { ...r, exception: false, important: false }
          : r,
      ),
  };
}

function feed(sources: JobSource[], sink: RuleSink, warnings: string[]) {
  for (const source of sources) {
    try {
      const text = source.text ??
        decodeListBody(Deno.readFileSync(source.path ?? ""));
      parseList(text, source.format, sink);
    } catch (err) {
      // A source that cannot be read or is not a list costs that source
      // only; the fetcher keeps the last good body on disk.
      const why = err instanceof Error ? err.message : String(err);
      warnings.push(`Cannot use block list source ${source.label}: ${why}`);
    }
  }
}
