/**
 * One page of the query log over the HTTP API (GET /api/v1/querylog,
 * limit=100, newest first) over a log of 30 M events, with and without
 * filters: p50 / p99 / max over N repetitions, wall clock until the whole
 * body is read, the API in-process on 127.0.0.1 (Deno.serve) with a token;
 * then the next 10 pages of each (following `continue`, as the web UI's
 * "older queries" does), by the server's own time (`took_ms`).
 *
 * The log is bench/querylog's 30-day database (generate.ts: synthetic
 * traffic packed as a worker packs it and written by the writer's own
 * BatchStore.writeEvents, then folded into hours), made once and reused
 * from $TMPDIR (default /tmp) while its row count and schema match: the
 * 30 M file is the one `bench/querylog/run.ts` uses.
 *
 *   deno run -A bench/api/querylog_bench.ts [--rows 30e6] [--reps 20] [--warmup 2] [--db PATH]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { queryLogRoutes } from "../../src/apiserver/routes/querylog_routes.ts";
import { API_SCAN_BUDGET } from "../../src/apiserver/routes/querylog_search.ts";
import { createMemoryStore } from "../../src/store/memory/memory_store.ts";
import { generateBigDb } from "../querylog/generate.ts";
import { syntheticTraffic } from "../querylog/synthetic_traffic.ts";
import {
  adminToken,
  cpuModel,
  getData,
  intOption,
  ms,
  percentile,
  print,
  serveApi,
  table,
} from "./harness.ts";

const HELP = `Usage: deno run -A bench/api/querylog_bench.ts [options]

  --rows N     events in the query log (default 30e6; 30e6 takes ~3-4 min
               to generate the first time, ~1 GB)
  --reps N     timed repetitions of each request (default 20)
  --warmup N   untimed repetitions first (default 2)
  --db PATH    the cached log (default $TMPDIR/kudurru-querylog-bench-<rows>.db,
               /tmp without TMPDIR; 30e6 is the file bench/querylog uses)
  --help       this text

The log is generated once (bench/querylog/generate.ts) with a sidecar
<db>.json and reused while its row count and schema match.`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "30e6" },
    reps: { type: "string", default: "20" },
    warmup: { type: "string", default: "2" },
    db: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const ROWS = intOption("rows", values.rows, 1000, 200_000_000);
const REPS = intOption("reps", values.reps, 1, 10_000);
const WARMUP = intOption("warmup", values.warmup, 0, 100);
/** Pages followed after the first. */
const NEXT_PAGES = 10;
const label = ROWS % 1_000_000 === 0 ? `${ROWS / 1_000_000}m` : String(ROWS);
const DB = values.db ??
  join(Deno.env.get("TMPDIR") ?? "/tmp", `kudurru-querylog-bench-${label}.db`);

/**
 * Domain suffixes of the synthetic traffic (its names are
 * `<word><n>.<sld><m>.<tld>`) with their share of the queries (zipf, s=1):
 * the commonest, and one about a thousand times rarer.
 */
function suffixes(): { common: [string, number]; rare: [string, number] } {
  const names = syntheticTraffic(42).names;
  const weight = new Map<string, number>();
  let total = 0;
  names.forEach((name, k) => {
    const suffix = name.slice(name.indexOf(".") + 1, -1);
    const w = 1 / (k + 1);
    total += w;
    weight.set(suffix, (weight.get(suffix) ?? 0) + w);
  });
  const sorted = [...weight].map(([s, w]) => [s, w / total] as [string, number])
    .sort((a, b) => b[1] - a[1]);
  const common = sorted[0]!;
  const rare = sorted.find(([, share]) => share <= common[1] / 1000) ??
    sorted.at(-1)!;
  return { common, rare };
}

async function main(): Promise<void> {
  print(`query log: ${DB}`);
  const info = await generateBigDb(DB, ROWS);
  const bytes = Deno.statSync(DB).size;
  const { common, rare } = suffixes();
  const dataDir = await Deno.makeTempDir({ prefix: "kudurru-api-ql-bench-" });
  const store = createMemoryStore();
  try {
    await using served = await serveApi({
      store,
      dataDir,
      extraRoutes: (shared) => [
        queryLogRoutes({ queryLogPath: DB, now: shared.now }),
      ],
    });
    const token = await adminToken(served.url);
    const pct = (share: number) => `${(share * 100).toPrecision(2)} %`;
    const requests: { label: string; query: string; note: string }[] = [
      { label: "newest page, no filter", query: "", note: "" },
      {
        label: `domain=*.${common[0]}`,
        query: `domain=*.${common[0]}`,
        note: `~${pct(common[1])} of events`,
      },
      {
        label: `domain=*.${rare[0]}`,
        query: `domain=*.${rare[0]}`,
        note: `~${pct(rare[1])} of events`,
      },
      {
        label: "client=192.168.1.30",
        query: "client=192.168.1.30",
        note: "1 of 50 clients (zipf)",
      },
      { label: "status=blocked", query: "status=blocked", note: "~10 %" },
      {
        label: "client + status=blocked",
        query: "client=192.168.1.30&status=blocked",
        note: "",
      },
    ];
    const results = [];
    for (const r of requests) {
      const url = `${served.url}/api/v1/querylog?limit=100` +
        (r.query === "" ? "" : `&${r.query}`);
      const samples: number[] = [];
      let items = 0;
      let more = false;
      let kb = 0;
      for (let rep = 0; rep < WARMUP + REPS; rep++) {
        const got = await getData(url, token);
        if (rep < WARMUP) continue;
        samples.push(got.ms);
        items = got.data.items.length;
        more = got.data.continue !== undefined;
        kb = got.bytes / 1000;
      }
      // The pages after it, as a reader scrolls back.
      const next: number[] = [];
      let cursor = more ? (await getData(url, token)).data.continue : undefined;
      for (let page = 0; page < NEXT_PAGES && cursor !== undefined; page++) {
        const got = await getData(
          `${url}&continue=${encodeURIComponent(cursor)}`,
          token,
        );
        next.push(got.serverMs);
        cursor = got.data.continue;
      }
      results.push({ ...r, samples, items, more, kb, next });
    }

    print(
      `API query-log benchmark: one page (limit=100, newest first) of GET /api/v1/querylog`,
    );
    print(
      `  log: ${info.events} events over 30 days, ${
        (bytes / 1e6).toFixed(0)
      } MB; generated in ${info.generatedSeconds.toFixed(0)} s${
        info.cached ? " (by an earlier run, reused)" : ""
      }`,
    );
    print(
      `  ${REPS} timed repetitions after ${WARMUP} untimed, each filter in turn; client and server in one process`,
    );
    print(`  host: ${cpuModel()}; Deno ${Deno.version.deno}`);
    print();
    const lines = table([
      [
        "filter",
        "p50 ms",
        "p99 ms",
        "max ms",
        "items",
        "continue",
        "KB",
        "next pages ms (p50 / max)",
        "share",
      ],
      ...results.map((r) => [
        r.label,
        ms(percentile(r.samples, 50)),
        ms(percentile(r.samples, 99)),
        ms(Math.max(...r.samples)),
        String(r.items),
        r.more ? "yes" : "no",
        r.kb.toFixed(0),
        r.next.length === 0
          ? "-"
          : `${ms(percentile(r.next, 50))} / ${ms(Math.max(...r.next))}`,
        r.note,
      ]),
    ]);
    for (const line of lines) print(line);
    print();
    print(
      `  A page may hold fewer than 100 events with \`continue\` set: a search reads at most ${
        API_SCAN_BUDGET.toLocaleString("en")
      } event ids per request (querylog_search.ts API_SCAN_BUDGET).`,
    );
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

await main();
