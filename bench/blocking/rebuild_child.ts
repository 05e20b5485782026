/**
 * Child process: peak RSS while a list of `--entries N` rules is rebuilt
 * with the old one still in force (copy-on-write refresh), as the kernel's
 * high-water mark (VmHWM, reset before the rebuild through
 * /proc/self/clear_refs). The new list is parsed from a body text held in
 * memory, as a fetched list would be.
 *
 *   deno run -A --v8-flags=--expose-gc bench/blocking/rebuild_child.ts --entries 3000000
 */

import type { CompiledListData } from "../../src/blocking/types.ts";
import { createListCompiler } from "../../src/blocking/matcher/compiler.ts";
import { openCompiledList } from "../../src/blocking/matcher/open.ts";
import {
  collectGarbage,
  entriesArg,
  listBody,
  loadReal,
  META,
  parseBody,
  report,
} from "./dataset.ts";

function highWaterMark(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Compiles the body; `extra` makes the new list differ (equal digests share a matcher). */
function compile(body: string, extra: string): CompiledListData {
  const compiler = createListCompiler(META);
  parseBody(body, compiler);
  parseBody(extra, compiler);
  return compiler.finish();
}

const entries = entriesArg();
const body = listBody(await loadReal(), entries);
let old: CompiledListData | null = compile(body, "||old.example^");
openCompiledList(old).check("a.example.");
await collectGarbage();
const steadyRss = Deno.memoryUsage().rss;

Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // reset VmHWM to the current RSS
const t0 = performance.now();
const fresh = compile(body, "||new.example^");
openCompiledList(fresh).check("a.example.");
const rebuildSeconds = (performance.now() - t0) / 1000;
const peakRss = highWaterMark();
await collectGarbage();
const bothRss = Deno.memoryUsage().rss;
old = null;
await collectGarbage();
const afterRss = Deno.memoryUsage().rss;

report({
  figure: "rebuild",
  entries,
  ruleCount: fresh.ruleCount,
  bodyBytes: body.length,
  steadyRss,
  peakRss,
  bothRss,
  afterRss,
  rebuildSeconds,
});
