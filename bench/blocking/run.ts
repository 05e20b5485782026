/**
 * The blocking-engine benchmark: compile time, lookup latency, steady RSS
 * and peak RSS during a rebuild, each figure in its own fresh process, on
 * lists built from the real lists plus generated names (dataset.ts).
 * Prints a table against the targets (README.md).
 *
 *   deno run -A bench/blocking/run.ts [--only compile,lookup,memory,rebuild]
 *     [--sizes 1000000,3000000] [--batch 1000] [--batches 2000]
 *
 * Children run one after another (one core busy at a time); each is killed
 * after 10 minutes.
 */

import { REGEX_V8_FLAGS } from "../../src/blocking/parse/regex_engine.ts";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string", default: "compile,lookup,memory,rebuild" },
    sizes: { type: "string", default: "1000000,3000000" },
    batch: { type: "string", default: "1000" },
    batches: { type: "string", default: "2000" },
  },
});
const figures = new Set(values.only.split(","));
const sizes = values.sizes.split(",").map(Number).filter((n) => n > 0);
const here = new URL(".", import.meta.url);

const encoder = new TextEncoder();
function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}
function note(text: string): void {
  Deno.stderr.writeSync(encoder.encode(text + "\n"));
}

type Result = Record<string, unknown>;

/** Runs one child script in a fresh `deno` process and returns its JSON line. */
async function child(
  script: string,
  entries: number,
  extra: string[] = [],
): Promise<Result> {
  note(`running ${script} --entries ${entries} ${extra.join(" ")}`);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      // As kudurru runs: regex rules are refused without the regex flags.
      `--v8-flags=--expose-gc,${REGEX_V8_FLAGS}`,
      new URL(script, here).pathname,
      "--entries",
      String(entries),
      ...extra,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    signal: AbortSignal.timeout(600_000),
  }).output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  if (!out.success) throw new Error(`${script} failed (exit ${out.code})`);
  return JSON.parse(lines[lines.length - 1]!) as Result;
}

const mb = (bytes: unknown) => `${(Number(bytes) / 1e6).toFixed(0)} MB`;
const ns = (v: unknown) => `${Number(v).toFixed(0)} ns`;
const verdict = (ok: boolean, miss: string) => ok ? "ok" : `MISSED (${miss})`;
const load = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");

const rows: string[][] = [];
const loadBefore = load();

if (figures.has("compile")) {
  for (const n of sizes) {
    const r = await child("compile_child.ts", n);
    const perMillion = Number(r.secondsPerMillion);
    rows.push([
      `compile ${n.toLocaleString("en")}`,
      `${Number(r.compileSeconds).toFixed(2)} s = ${
        perMillion.toFixed(2)
      } s/M rules ` +
      `(+ ${Number(r.readerSeconds).toFixed(2)} s line reader; ` +
      `reader + digest alone ${Number(r.digestSeconds).toFixed(2)} s)`,
      "≤ 3 s per 1M rules",
      verdict(perMillion <= 3, `+${((perMillion / 3 - 1) * 100).toFixed(0)} %`),
    ]);
  }
}

if (figures.has("lookup")) {
  for (const n of sizes) {
    const r = await child("lookup_child.ts", n, [
      "--batch",
      values.batch,
      "--batches",
      values.batches,
    ]);
    type Percentiles = { p50: number; p99: number; p999: number };
    type LookupRow = Percentiles & {
      name: string;
      undisturbedBatches: number;
      undisturbed: Percentiles;
    };
    const show = (p: Percentiles) =>
      `p50 ${ns(p.p50)}, p99 ${ns(p.p99)}, p99.9 ${ns(p.p999)}`;
    const over = (p99: number) => `+${((p99 / 1000 - 1) * 100).toFixed(0)} %`;
    for (const row of r.rows as LookupRow[]) {
      const gated = n === 1_000_000;
      rows.push([
        `lookup ${n.toLocaleString("en")}: ${row.name}`,
        `undisturbed ${
          show(row.undisturbed)
        } (${row.undisturbedBatches}/${values.batches} ` +
        `batches); all batches ${show(row)}`,
        gated ? "p99 ≤ 1 µs" : "(reported)",
        gated
          ? verdict(row.undisturbed.p99 <= 1000, over(row.undisturbed.p99)) +
            (row.p99 > 1000 ? ` (all batches: ${over(row.p99)})` : "")
          : "",
      ]);
    }
  }
}

if (figures.has("memory")) {
  for (const n of sizes) {
    const r = await child("memory_child.ts", n);
    const target = n === 3_000_000;
    rows.push([
      `steady RSS ${n.toLocaleString("en")}`,
      `${mb(r.rss)} after a memory-reducing GC (${
        mb(r.rssPlainGc)
      } after plain gc(); ` +
      `empty process ${mb(r.baselineRss)}, shared tables ${
        mb(r.sharedBytes)
      }, ${Number(r.nodes).toLocaleString("en")} nodes)`,
      target ? "≤ 150 MB" : "(reported)",
      target
        ? verdict(
          Number(r.rss) <= 150e6,
          `+${((Number(r.rss) / 150e6 - 1) * 100).toFixed(0)} %`,
        )
        : "",
    ]);
  }
}

if (figures.has("rebuild")) {
  const n = Math.max(...sizes);
  const r = await child("rebuild_child.ts", n);
  rows.push([
    `rebuild ${n.toLocaleString("en")}`,
    `peak ${mb(r.peakRss)} (before: old list + ${mb(r.bodyBytes)} body ${
      mb(r.steadyRss)
    }; ` +
    `old + new ${mb(r.bothRss)}; new only ${mb(r.afterRss)}; ${
      Number(r.rebuildSeconds).toFixed(2)
    } s)`,
    "(reported)",
    "",
  ]);
}

const widths = [0, 1, 2, 3].map((i) =>
  Math.max(...rows.map((r) => r[i]!.length), 6)
);
const line = (cells: string[]) =>
  cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
print(line(["figure", "measured", "target", "result"]));
for (const r of rows) print(line(r));
print(
  `load average before ${loadBefore}, after ${load()} (${navigator.hardwareConcurrency} cores)`,
);
