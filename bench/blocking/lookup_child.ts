/**
 * Child process: lookup latency on a list of `--entries N` rules, per kind
 * of query, as per-lookup percentiles over batches: each batch times
 * `--batch` lookups (default 1000) with performance.now(), the per-lookup
 * figure of a batch is its time divided by its size, and p50/p99/p99.9 are
 * taken over `--batches` batches (default 2000) after a warm-up. The same
 * percentiles over only the batches the kernel never descheduled (see
 * timesScheduled) show the matcher without the machine's other load.
 *
 * Queries are flat strings with the trailing dot, as decoded from the wire,
 * and each is classified by what the matcher answers, so a "miss" row holds
 * only real misses:
 *   hit: listed name           a name of the list itself (walks every label)
 *   hit: below a suffix rule   "www." + a listed suffix name
 *   miss: unknown domain       a new registrable domain under a real TLD
 *   miss: sibling of a listed  a new label under the parent of a listed name
 *                              (walks down to the last label before missing)
 *
 *   deno run -A --v8-flags=--expose-gc bench/blocking/lookup_child.ts --entries 1000000
 */

import type { ListMatcher } from "../../src/blocking/types.ts";
import { createListCompiler } from "../../src/blocking/matcher/compiler.ts";
import { openCompiledList } from "../../src/blocking/matcher/open.ts";
import {
  collectGarbage,
  entriesArg,
  loadReal,
  META,
  prng,
  randomLabel,
  realName,
  report,
  streamList,
} from "./dataset.ts";

const QUERIES_PER_ROW = 20_000;

function flagArg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  const n = i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const entries = entriesArg();
const batch = flagArg("--batch", 1000);
const batches = flagArg("--batches", 2000);

// Wire-decoded names are flat one-byte strings; concatenations are not.
const encoder = new TextEncoder(), decoder = new TextDecoder();
const flat = (s: string) => decoder.decode(encoder.encode(s));

const real = await loadReal();
const rand = prng(0xbe9c4);
const listed: string[] = [], suffixes: string[] = [];
const every = Math.max(1, Math.floor(entries / (QUERIES_PER_ROW * 2)));
let seen = 0;
const compiler = createListCompiler(META);
streamList(real, entries, {
  rule: (r) => {
    compiler.rule(r);
    if (seen++ % every !== 0) return;
    listed.push(r.pattern);
    if (r.kind === "suffix") suffixes.push(r.pattern);
  },
});
const matcher: ListMatcher = openCompiledList(compiler.finish());

function row(make: () => string, wantHit: boolean): string[] {
  const out: string[] = [];
  for (
    let tries = 0;
    out.length < QUERIES_PER_ROW && tries < QUERIES_PER_ROW * 10;
    tries++
  ) {
    const q = flat(make() + ".");
    if ((matcher.check(q) !== null) === wantHit) out.push(q);
  }
  return out;
}
const pick = (a: string[]) => a[Math.floor(rand() * a.length)]!;
const tldOf = (n: string) => n.slice(n.lastIndexOf("."));
const parentOf = (n: string) =>
  n.includes(".") ? n.slice(n.indexOf(".") + 1) : n;
const rows: [string, string[]][] = [
  ["hit: listed name", row(() => pick(listed), true)],
  ["hit: below a suffix rule", row(() => "www." + pick(suffixes), true)],
  [
    "miss: unknown domain",
    row(() => randomLabel(rand, 5, 14) + tldOf(realName(real, rand)), false),
  ],
  [
    "miss: sibling of a listed",
    row(() => randomLabel(rand, 3, 10) + "." + parentOf(pick(listed)), false),
  ],
];
await collectGarbage();

/**
 * How many times the kernel has put this thread on a CPU (the third field
 * of /proc/thread-self/schedstat): if it changes during a batch, the batch
 * was descheduled and its time includes other processes' work.
 */
const schedstat = Deno.openSync("/proc/thread-self/schedstat");
const statBytes = new Uint8Array(128);
function timesScheduled(): number {
  schedstat.seekSync(0, Deno.SeekMode.Start);
  const n = schedstat.readSync(statBytes) ?? 0;
  return Number(decoder.decode(statBytes.subarray(0, n)).trim().split(" ")[2]);
}

let sink = 0;
/** Per-lookup ns of every batch, and of the batches never descheduled. */
function timeBatches(
  queries: string[],
): { all: number[]; undisturbed: number[] } {
  const all: number[] = [], undisturbed: number[] = [];
  let next = 0;
  for (let b = 0; b < batches; b++) {
    const scheduled = timesScheduled();
    const t0 = performance.now();
    for (let k = 0; k < batch; k++) {
      if (matcher.check(queries[next]!) !== null) sink++;
      if (++next === queries.length) next = 0;
    }
    const ns = (performance.now() - t0) * 1e6 / batch;
    all.push(ns);
    if (timesScheduled() === scheduled) undisturbed.push(ns);
  }
  return { all, undisturbed };
}

function percentiles(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999) };
}

const results = [];
for (const [name, queries] of rows) {
  timeBatches(queries.slice(0, 2000)); // warm-up: let the JIT settle
  const { all, undisturbed } = timeBatches(queries);
  results.push({
    name,
    queries: queries.length,
    ...percentiles(all),
    undisturbedBatches: undisturbed.length,
    undisturbed: percentiles(undisturbed),
  });
}
schedstat.close();

report({ figure: "lookup", entries, batch, batches, rows: results, sink });
