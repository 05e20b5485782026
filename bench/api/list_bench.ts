/**
 * Listing 10,000 DNSRecordSets over the HTTP API: the API in-process over a
 * real SQLite Store (src/store/sqlite), served by Deno.serve on 127.0.0.1,
 * a token made through the API, and three requests timed over N
 * repetitions (p50 / p99 / max, wall clock until the whole body is read):
 *
 * - GET /api/v1/dnsrecordsets?limit=1000, following `continue` across all
 *   of them (the walk, and each page in it);
 * - GET /api/v1/dnsrecordsets?limit=100 (one page);
 * - GET /api/v1/dnszones/bench-test/records (the flat list: one row per
 *   record, all of them), and one page of it (`limit=100`; the rows are
 *   kept while the Store is unchanged, so a page after the first reads
 *   one record set to learn that).
 *
 * The record sets are written straight through the Store (not the API),
 * one endpoint each (an A record), into one zone.
 *
 *   deno run -A bench/api/list_bench.ts [--sets 10000] [--reps 50] [--warmup 3]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { zoneRoutes } from "../../src/apiserver/routes/zone_routes.ts";
import { openSqliteStore } from "../../src/store/sqlite/sqlite_store.ts";
import type { KObject } from "../../src/store/store.ts";
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

const HELP = `Usage: deno run -A bench/api/list_bench.ts [options]

  --sets N     DNSRecordSets in the zone (default 10000)
  --reps N     timed repetitions of each request (default 50)
  --warmup N   untimed repetitions first (default 3)
  --help       this text

Writes the record sets into a fresh SQLite store in a temporary directory
(removed at the end), serves the API on 127.0.0.1 in this process, and
prints p50 / p99 / max of each request.`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sets: { type: "string", default: "10000" },
    reps: { type: "string", default: "50" },
    warmup: { type: "string", default: "3" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const SETS = intOption("sets", values.sets, 1, 1_000_000);
const REPS = intOption("reps", values.reps, 1, 10_000);
const WARMUP = intOption("warmup", values.warmup, 0, 100);

const ZONE = "bench-test";
const NAMESPACE = "bench";

function zone(): KObject {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: ZONE },
    spec: {
      zoneName: "bench.test.",
      type: "primary",
      soa: { mname: "ns1.bench.test.", rname: "hostmaster.bench.test." },
      nameservers: ["ns1.bench.test."],
      defaultTTL: 300,
    },
  };
}

function recordSet(i: number): KObject {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: {
      name: `h${String(i).padStart(6, "0")}`,
      namespace: NAMESPACE,
    },
    spec: {
      zoneRef: { name: ZONE },
      endpoints: [{
        dnsName: `h${i}.bench.test`,
        recordType: "A",
        targets: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
      }],
    },
  };
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

interface Series {
  label: string;
  samples: number[];
  /** Bytes of one answer (or of the whole walk), and its items. */
  bytes: number;
  items: number;
  note?: string;
}

async function main(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-api-list-bench-" });
  try {
    const store = await openSqliteStore(join(dir, "state.db"), {
      node: "bench",
    });
    try {
      const began = performance.now();
      const options = { manager: "api", actor: "bench" };
      await store.apply(zone(), options);
      for (let i = 0; i < SETS; i++) await store.apply(recordSet(i), options);
      const writeSeconds = (performance.now() - began) / 1000;
      const dbBytes = fileSize(join(dir, "state.db")) +
        fileSize(join(dir, "state.db-wal"));
      // The zone routes are a route module the server adds (src/server/api.ts).
      await using served = await serveApi({
        store,
        dataDir: dir,
        extraRoutes: (shared) => [zoneRoutes({ store, now: shared.now })],
      });
      const token = await adminToken(served.url);
      const base = served.url;

      const walk: Series = {
        label: "walk: limit=1000, every page",
        samples: [],
        bytes: 0,
        items: 0,
      };
      const walkPages: Series = {
        label: "  each page of the walk",
        samples: [],
        bytes: 0,
        items: 1000,
      };
      const page: Series = {
        label: "one page: limit=100",
        samples: [],
        bytes: 0,
        items: 0,
      };
      const flat: Series = {
        label: `flat list: dnszones/${ZONE}/records`,
        samples: [],
        bytes: 0,
        items: 0,
      };
      const flatPage: Series = {
        label: `flat list page: dnszones/${ZONE}/records?limit=100`,
        samples: [],
        bytes: 0,
        items: 0,
      };
      for (let rep = 0; rep < WARMUP + REPS; rep++) {
        const timed = rep >= WARMUP;
        // The walk.
        let next: string | undefined;
        let total = 0;
        let bytes = 0;
        let items = 0;
        const pageTimes: number[] = [];
        do {
          const url = `${base}/api/v1/dnsrecordsets?limit=1000` +
            (next !== undefined ? `&continue=${encodeURIComponent(next)}` : "");
          const got = await getData(url, token);
          total += got.ms;
          bytes += got.bytes;
          items += got.data.items.length;
          pageTimes.push(got.ms);
          next = got.data.continue;
        } while (next !== undefined);
        if (items !== SETS) {
          throw new Error(`the walk saw ${items} record sets, not ${SETS}`);
        }
        // One page of 100.
        const one = await getData(
          `${base}/api/v1/dnsrecordsets?limit=100`,
          token,
        );
        // The flat list.
        const rows = await getData(
          `${base}/api/v1/dnszones/${ZONE}/records`,
          token,
        );
        if (rows.data.items.length < SETS) {
          throw new Error(`the flat list has ${rows.data.items.length} rows`);
        }
        const rowPage = await getData(
          `${base}/api/v1/dnszones/${ZONE}/records?limit=100`,
          token,
        );
        if (!timed) continue;
        walk.samples.push(total);
        walk.bytes = bytes;
        walk.items = items;
        walk.note = `${pageTimes.length} pages`;
        walkPages.samples.push(...pageTimes);
        walkPages.bytes = Math.round(bytes / pageTimes.length);
        walkPages.items = Math.round(items / pageTimes.length);
        page.samples.push(one.ms);
        page.bytes = one.bytes;
        page.items = one.data.items.length;
        flat.samples.push(rows.ms);
        flat.bytes = rows.bytes;
        flat.items = rows.data.items.length;
        flatPage.samples.push(rowPage.ms);
        flatPage.bytes = rowPage.bytes;
        flatPage.items = rowPage.data.items.length;
      }

      print(
        `API list benchmark: ${SETS} DNSRecordSets (one A record each) in one zone, SQLite store`,
      );
      print(
        `  written through the Store in ${writeSeconds.toFixed(1)} s (${
          (dbBytes / 1e6).toFixed(1)
        } MB); ${REPS} timed repetitions after ${WARMUP} untimed; client and server in one process`,
      );
      print(`  host: ${cpuModel()}; Deno ${Deno.version.deno}`);
      print();
      const lines = table([
        [
          "request",
          "samples",
          "p50 ms",
          "p99 ms",
          "max ms",
          "items",
          "KB",
          "note",
        ],
        ...[walk, walkPages, page, flat, flatPage].map((s) => [
          s.label,
          String(s.samples.length),
          ms(percentile(s.samples, 50)),
          ms(percentile(s.samples, 99)),
          ms(Math.max(...s.samples)),
          String(s.items),
          (s.bytes / 1000).toFixed(0),
          s.note ?? "",
        ]),
      ]);
      for (const line of lines) print(line);
      print();
      print(
        `  per 1,000 record sets: walk ${
          ms(percentile(walk.samples, 50) / (SETS / 1000))
        } ms, flat list ${
          ms(percentile(flat.samples, 50) / (SETS / 1000))
        } ms (p50)`,
      );
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
