/**
 * Child process: steady RSS of a whole process holding one compiled list of
 * `--entries N` rules, after GC, next to the same process's RSS before it
 * loaded anything. The rules stream into the compiler (as from a parser);
 * everything but the compiled list is dropped before measuring. Reported
 * after a plain gc() and after a memory-reducing one (what V8's memory
 * reducer does by itself once the process is quiet; see dataset.ts).
 *
 *   deno run -A --v8-flags=--expose-gc bench/blocking/memory_child.ts --entries 3000000
 */

import type {
  CompiledListData,
  ListMatcher,
} from "../../src/blocking/types.ts";
import { createListCompiler } from "../../src/blocking/matcher/compiler.ts";
import { openCompiledList } from "../../src/blocking/matcher/open.ts";
import {
  collectGarbage,
  entriesArg,
  loadReal,
  META,
  report,
  streamList,
} from "./dataset.ts";

const entries = entriesArg();
await collectGarbage();
const baselineRss = Deno.memoryUsage().rss;

async function build(): Promise<
  { data: CompiledListData; matcher: ListMatcher }
> {
  const compiler = createListCompiler(META);
  streamList(await loadReal(), entries, compiler);
  const data = compiler.finish();
  return { data, matcher: openCompiledList(data) };
}

const { data, matcher } = await build();
const hit = matcher.check("000free.us.");
await collectGarbage("plain");
const rssPlainGc = Deno.memoryUsage().rss;
await collectGarbage("reduce");
const usage = Deno.memoryUsage();
const layout = data.data as {
  capacity: number;
  labelBytes: number;
  nodes: number;
};

report({
  figure: "memory",
  entries,
  ruleCount: data.ruleCount,
  nodes: layout.nodes,
  // In use: the buffers are allocated larger (see buffers.ts), untouched.
  sharedBytes: layout.capacity * 16 + layout.labelBytes,
  baselineRss,
  rss: usage.rss,
  rssPlainGc,
  heapUsed: usage.heapUsed,
  stillMatches: hit !== null,
});
