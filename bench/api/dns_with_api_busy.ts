/**
 * What a busy HTTP API costs the DNS: dnsperf against one real
 * `kudurru serve` (bench/dnsperf's zone, ~10,000 names, authoritative
 * answers over UDP) twice in one run, first with the API idle, then while
 * this process hammers the API, and the ratio of the two throughputs
 * (target: busy ÷ idle ≥ 0.9).
 *
 * The API load, for exactly as long as the busy dnsperf run: `--api-clients`
 * clients, each sending one request after another in turn (GET dnszones,
 * dnsrecordsets?limit=100 (17 record sets of up to 1,000 endpoints),
 * a page of the zone's flat record list (records?limit=100 of 16,501 rows), a query-log page newest first,
 * and a query-log page with type=MX), plus one open SSE tail of the query
 * log (unfiltered unless --tail-filter; it streams the events dnsperf makes,
 * dropping what the client does not read fast enough). `--load` picks the
 * parts; `--api-rate R` paces the clients to R requests per second in
 * all (default 0: back to back, as fast as the API answers). Printed: DNS
 * q/s and server CPU per query in each phase, the main thread's share of a
 * CPU (it serves the API and writes the query log; the listeners are
 * Workers), busy ÷ idle, the API requests per second achieved and their
 * latency, and the tail's events.
 *
 * `--pin`, as bench/dnsperf does: kudurru (every thread) on CPU 0, dnsperf
 * on CPU 1; this process (the API clients) is pinned to CPU 1 as well, so
 * that the load's own cost is not taken from the server.
 * `--rounds N` measures idle and busy N times (the order reversed every
 * other round) and ends with the median ratio.
 *
 *   deno run -A bench/api/dns_with_api_busy.ts [--duration 10] [--clients 4]
 *     [--qps 1000000] [--api-clients 2] [--api-rate 0]
 *     [--load list,search,tail] [--tail-filter ''] [--api-cpu P] [--rounds 1] [--pin]
 */
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import {
  BENCH_ZONE,
  benchQueryFile,
  benchRecordSets,
  benchZone,
} from "../dnsperf/bench_zone.ts";
import {
  clockTicks,
  threadTicks,
  ticksBetween,
  treeCpuSeconds,
} from "../dnsperf/cpu_time.ts";
import { dnsperfCommand, LOAD_CPU, pinServer } from "../dnsperf/cpu_pinning.ts";
import { settle } from "../dnsperf/settle.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { freePort } from "../../src/testing/free_port.ts";
import {
  ADMIN_PASSWORD,
  adminToken,
  cpuModel,
  intOption,
  ms,
  percentile,
  print,
  table,
  usageError,
} from "./harness.ts";

const HELP = `Usage: deno run -A bench/api/dns_with_api_busy.ts [options]

  --duration S      seconds of each dnsperf run (default 10)
  --clients N       dnsperf clients (default 4)
  --qps N           dnsperf's rate cap (default 1000000)
  --api-clients N   API clients, each one request after another (default 2)
  --api-rate R      pace them to R requests/s in all (default 0: back to
                    back, as fast as the API answers)
  --load LIST       parts of the API load: list (zones, record sets, the
                    flat record list), search (query-log pages), tail (an SSE
                    tail) (default list,search,tail)
  --tail-filter Q   query string of the tail, e.g. "type=MX" (default: none,
                    every query)
  --api-cpu P       listeners.api.cpuPercent of the server (default: its
                    default)
  --rounds N        idle and busy N times, order reversed every other round
                    (default 1)
  --pin             kudurru on CPU 0; dnsperf and this process on CPU 1
  --help            this text`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    qps: { type: "string", default: "1000000" },
    "api-clients": { type: "string", default: "2" },
    "api-rate": { type: "string", default: "0" },
    load: { type: "string", default: "list,search,tail" },
    "tail-filter": { type: "string", default: "" },
    rounds: { type: "string", default: "1" },
    "api-cpu": { type: "string", default: "" },
    pin: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const SECONDS = intOption("duration", values.duration, 1, 300);
const CLIENTS = intOption("clients", values.clients, 1, 256);
const MAX_QPS = intOption("qps", values.qps, 1, 100_000_000);
const API_CLIENTS = intOption("api-clients", values["api-clients"], 0, 16);
const API_RATE = intOption("api-rate", values["api-rate"], 0, 100_000);
const ROUNDS = intOption("rounds", values.rounds, 1, 10);
const API_CPU = values["api-cpu"] === ""
  ? undefined
  : intOption("api-cpu", values["api-cpu"], 1, 100);
const LOAD = new Set(
  values.load.split(",").map((s) => s.trim()).filter(Boolean),
);
for (const part of LOAD) {
  if (!["list", "search", "tail"].includes(part)) {
    usageError(`--load: unknown part "${part}" (list, search, tail)`);
  }
}
const TAIL_FILTER = values["tail-filter"].replace(/^\?/, "");

/** Unmeasured dnsperf before the first measured run. */
const WARM_UP_SECONDS = 2;

interface DnsRun {
  qps: number;
  completed: number;
  lost: string;
  cpuMicrosPerQuery: number;
  /** Main thread (API, query-log writer) CPU µs per query. */
  mainMicrosPerQuery: number;
  workersMicrosPerQuery: number;
  /** The main thread's CPU over the run, in CPUs (1 = one whole CPU). */
  mainShare: number;
  /** How busy each CPU of the machine was over the run (0-1), everything on it. */
  cpuBusy: number[];
  /** This process's CPU (the API clients, the tail's curl) over the run, in CPUs. */
  clientShare: number;
  /** Wall-clock length of the run. */
  seconds: number;
}

interface ApiLoad {
  requests: number;
  errors: number;
  seconds: number;
  byPath: Map<string, number[]>;
  tailEvents: number;
  tailDropped: number;
  tailBytes: number;
  /** CPU seconds of the curl that followed the tail. */
  curlCpuSeconds: number;
  firstError?: string;
}

async function dnsperf(
  port: number,
  queryFile: string,
  length: number,
): Promise<{ qps: number; completed: number; lost: string }> {
  const args = ["-s", "127.0.0.1", "-p", String(port), "-d", queryFile];
  args.push("-l", String(length), "-c", String(CLIENTS), "-Q", String(MAX_QPS));
  const run = dnsperfCommand(args, values.pin);
  const out = await new Deno.Command(run.command, {
    args: run.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout((length + 30) * 1000),
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  const qps = /Queries per second:\s+([\d.]+)/.exec(text);
  const completed = /Queries completed:\s+(\d+)/.exec(text);
  const lost = /Queries lost:\s+(\d+ \([\d.]+%\))/.exec(text);
  if (!qps || !completed) {
    throw new Error(`Cannot read the dnsperf result:\n${text}`);
  }
  return {
    qps: Number(qps[1]),
    completed: Number(completed[1]),
    lost: lost?.[1] ?? "?",
  };
}

/** Busy and total ticks of each CPU (/proc/stat `cpuN` lines). */
function cpuTicks(): { busy: number; total: number }[] {
  const out: { busy: number; total: number }[] = [];
  for (const line of Deno.readTextFileSync("/proc/stat").split("\n")) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const f = m[2]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal (guest is in user).
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    out[Number(m[1])] = { busy: total - f[3]! - f[4]!, total };
  }
  return out;
}

/** This process's user + system CPU seconds. */
function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** One measured dnsperf run, with the server's CPU over it. */
async function measureDns(
  pid: number,
  port: number,
  queryFile: string,
  ticks: number,
): Promise<DnsRun> {
  const before = treeCpuSeconds(pid, ticks);
  const threadsBefore = threadTicks(pid);
  const cpusBefore = cpuTicks();
  const ownBefore = ownCpuSeconds();
  const began = performance.now();
  const result = await dnsperf(port, queryFile, SECONDS);
  const wall = (performance.now() - began) / 1000;
  const own = ownCpuSeconds() - ownBefore;
  const cpuBusy = cpuTicks().map((after, i) => {
    const before = cpusBefore[i];
    if (before === undefined || after.total === before.total) return NaN;
    return (after.busy - before.busy) / (after.total - before.total);
  });
  const cpu = treeCpuSeconds(pid, ticks) - before;
  const used = ticksBetween(threadsBefore, threadTicks(pid));
  const per = (seconds: number) =>
    result.completed > 0 ? (seconds * 1e6) / result.completed : NaN;
  return {
    ...result,
    cpuMicrosPerQuery: per(cpu),
    mainMicrosPerQuery: per(used.main / ticks),
    workersMicrosPerQuery: per(used.workers / ticks),
    mainShare: used.main / ticks / wall,
    cpuBusy,
    clientShare: own / wall,
    seconds: wall,
  };
}

/** The API requests one client cycles through, by the parts of --load. */
function requestCycle(): string[] {
  const paths: string[] = [];
  if (LOAD.has("list")) {
    paths.push(
      "/api/v1/dnszones",
      "/api/v1/dnsrecordsets?limit=100",
      "/api/v1/dnszones/bench-test/records?limit=100",
    );
  }
  if (LOAD.has("search")) {
    paths.push(
      "/api/v1/querylog?limit=100",
      "/api/v1/querylog?limit=100&type=MX",
    );
  }
  return paths;
}

/**
 * Follows the SSE tail with curl until `signal` (curl, not fetch: it costs
 * the CPU it shares with dnsperf a fraction of what a JS stream reader
 * does), then counts the events it saved. The token goes to curl in a
 * header file, not on its command line.
 */
async function tail(
  base: string,
  token: string,
  signal: AbortSignal,
  load: ApiLoad,
  dir: string,
  ticks: number,
): Promise<void> {
  const headers = join(dir, "tail-headers.txt");
  const saved = join(dir, "tail.txt");
  const answered = join(dir, "tail-answer.txt");
  await Deno.writeTextFile(headers, `authorization: Bearer ${token}\n`);
  const child = new Deno.Command("curl", {
    args: [
      "--silent",
      "--no-buffer",
      "--max-time",
      String(SECONDS + 40),
      "--header",
      `@${headers}`,
      "--output",
      saved,
      "--dump-header",
      answered,
      `${base}/api/v1/querylog/tail${
        TAIL_FILTER === "" ? "" : `?${TAIL_FILTER}`
      }`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = () => {
    load.curlCpuSeconds = treeCpuSeconds(child.pid, ticks);
    try {
      child.kill("SIGTERM");
    } catch {
      // It has ended already.
    }
  };
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  await child.status;
  signal.removeEventListener("abort", stop);
  const head = await Deno.readTextFile(answered).catch(() => "");
  const code = /^HTTP\/[\d.]+ (\d+)/.exec(head)?.[1] ?? "none";
  const text = await Deno.readTextFile(saved).catch(() => "");
  if (code !== "200") {
    load.errors++;
    load.firstError ??= `tail: HTTP ${code} ${text.slice(0, 300)}`;
    return;
  }
  load.tailBytes = text.length;
  for (const block of text.split("\n\n")) {
    if (block.startsWith("event: query")) load.tailEvents++;
    else if (block.startsWith("event: dropped")) {
      const n = /"dropped":(\d+)/.exec(block);
      if (n) load.tailDropped += Number(n[1]);
    }
  }
}

/**
 * Hammers the API until `signal` aborts (it is also given a deadline):
 * API_CLIENTS clients, each one request after another, and the tail.
 */
async function apiLoad(
  base: string,
  token: string,
  signal: AbortSignal,
  dir: string,
  ticks: number,
): Promise<ApiLoad> {
  const load: ApiLoad = {
    requests: 0,
    errors: 0,
    seconds: 0,
    byPath: new Map(),
    tailEvents: 0,
    tailDropped: 0,
    tailBytes: 0,
    curlCpuSeconds: 0,
  };
  const cycle = requestCycle();
  const began = performance.now();
  // --api-rate: the next request's start time, shared by the clients.
  let slot = began;
  const interval = API_RATE > 0 ? 1000 / API_RATE : 0;
  const client = async (offset: number) => {
    for (let i = offset; !signal.aborted && cycle.length > 0; i++) {
      const path = cycle[i % cycle.length]!;
      if (interval > 0) {
        const at = slot;
        slot = Math.max(slot + interval, performance.now());
        const wait = at - performance.now();
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, wait);
            signal.addEventListener("abort", done, { once: true });
            function done() {
              clearTimeout(timer);
              signal.removeEventListener("abort", done);
              resolve();
            }
          });
          if (signal.aborted) break;
        }
      }
      const t = performance.now();
      try {
        const res = await fetch(`${base}${path}`, {
          headers: { authorization: `Bearer ${token}` },
          signal,
        });
        // Bytes, not text: the client's own CPU is taken from dnsperf's.
        const body = await res.arrayBuffer();
        if (res.status !== 200) {
          load.errors++;
          load.firstError ??= `${path}: ${res.status} ${
            new TextDecoder().decode(body).slice(0, 300)
          }`;
          continue;
        }
      } catch (error) {
        if (signal.aborted) break;
        load.errors++;
        load.firstError ??= `${path}: ${(error as Error).message}`;
        continue;
      }
      load.requests++;
      const list = load.byPath.get(path) ?? [];
      list.push(performance.now() - t);
      load.byPath.set(path, list);
    }
  };
  await Promise.all([
    ...Array.from({ length: API_CLIENTS }, (_, i) => client(i)),
    ...(LOAD.has("tail") ? [tail(base, token, signal, load, dir, ticks)] : []),
  ]);
  load.seconds = (performance.now() - began) / 1000;
  return load;
}

/** Waits until the API answers: it starts after the DNS listeners. */
async function apiUp(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${base}/api/v1/auth/status`);
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`the API at ${base} did not answer within 30 s`);
}

/** Pins this process (the API clients) to LOAD_CPU. */
async function pinSelf(): Promise<void> {
  const out = await new Deno.Command("taskset", {
    args: ["--all-tasks", "--pid", "--cpu-list", `${LOAD_CPU}`, `${Deno.pid}`],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `Cannot pin this process to CPU ${LOAD_CPU}: ${
        new TextDecoder().decode(out.stderr).trim()
      }`,
    );
  }
}

/** The loopback clients need Deno.listenDatagram: re-run under --unstable-net. */
async function rerunWithUnstableNet(): Promise<never> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

const median = (xs: number[]) => percentile(xs, 50);

async function main(): Promise<void> {
  if (typeof Deno.listenDatagram !== "function") await rerunWithUnstableNet();
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dns-api-busy-" });
  try {
    const queryFile = join(dir, "queries.txt");
    await Deno.writeTextFile(queryFile, benchQueryFile());
    const ticks = await clockTicks();
    await using server = await startKudurru({
      objects: [benchZone(), ...benchRecordSets()],
      readyZone: BENCH_ZONE,
      upstreamPort: freePort(),
      env: { KUDURRU_ADMIN_PASSWORD: ADMIN_PASSWORD },
      ...(API_CPU !== undefined && { api: { cpuPercent: API_CPU } }),
    });
    await apiUp(server.apiUrl);
    if (values.pin) {
      await pinServer(server.pid);
      await pinSelf();
    }
    const token = await adminToken(server.apiUrl);
    await settle(server.pid, ticks);
    await dnsperf(server.port, queryFile, WARM_UP_SECONDS);

    const rounds: { idle: DnsRun; busy: DnsRun; load: ApiLoad }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["idle", "busy"] : ["busy", "idle"];
      let idle: DnsRun | undefined;
      let busy: DnsRun | undefined;
      let load: ApiLoad | undefined;
      for (const phase of order) {
        await settle(server.pid, ticks);
        if (phase === "idle") {
          idle = await measureDns(server.pid, server.port, queryFile, ticks);
          continue;
        }
        const stop = new AbortController();
        // Bounded whatever happens to dnsperf.
        const deadline = setTimeout(() => stop.abort(), (SECONDS + 40) * 1000);
        const loading = apiLoad(
          server.apiUrl,
          token,
          stop.signal,
          dir,
          ticks,
        );
        try {
          busy = await measureDns(server.pid, server.port, queryFile, ticks);
        } finally {
          stop.abort();
          clearTimeout(deadline);
        }
        load = await loading;
        // The tail's curl is this process's too.
        busy!.clientShare += load.curlCpuSeconds / busy!.seconds;
      }
      rounds.push({ idle: idle!, busy: busy!, load: load! });
      report(round, rounds.at(-1)!);
    }
    if (ROUNDS > 1) {
      const ratios = rounds.map((r) => r.busy.qps / r.idle.qps);
      print(
        `median of ${ROUNDS} rounds: busy ÷ idle ${
          median(ratios).toFixed(2)
        } (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}), API ${
          median(rounds.map((r) => r.load.requests / r.load.seconds)).toFixed(1)
        } requests/s`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function report(
  round: number,
  r: { idle: DnsRun; busy: DnsRun; load: ApiLoad },
): void {
  const { idle, busy, load } = r;
  print(
    `${
      ROUNDS > 1 ? `round ${round + 1}: ` : ""
    }dnsperf UDP ${SECONDS}s per run, ${CLIENTS} clients, at most ${MAX_QPS} q/s, bench.test. (authoritative)${
      values.pin
        ? ", pinned (kudurru CPU 0; dnsperf and API clients CPU 1)"
        : ""
    }`,
  );
  print(
    `  API load: ${API_CLIENTS} clients ${
      API_RATE > 0 ? `paced to ${API_RATE} requests/s in all` : "back to back"
    } over [${requestCycle().join(", ")}]${
      LOAD.has("tail")
        ? ` + 1 SSE tail${
          TAIL_FILTER === "" ? " (unfiltered)" : ` ?${TAIL_FILTER}`
        }`
        : ""
    }`,
  );
  print(`  host: ${cpuModel()}; Deno ${Deno.version.deno}`);
  print();
  for (
    const line of table([
      [
        "phase",
        "q/s",
        "lost",
        "CPU µs/query",
        "main µs/q",
        "workers µs/q",
        "main thread CPU",
        "API clients CPU",
        "busy CPUs",
      ],
      ...[["API idle", idle], ["API busy", busy]].map(([name, d]) => {
        const run = d as DnsRun;
        return [
          name as string,
          run.qps.toFixed(0),
          run.lost,
          run.cpuMicrosPerQuery.toFixed(1),
          run.mainMicrosPerQuery.toFixed(1),
          run.workersMicrosPerQuery.toFixed(1),
          `${(run.mainShare * 100).toFixed(0)} %`,
          `${(run.clientShare * 100).toFixed(0)} %`,
          run.cpuBusy.map((b, i) => `${i}: ${(b * 100).toFixed(0)} %`).join(
            ", ",
          ),
        ];
      }),
    ], false)
  ) print(line);
  print(
    "  µs/q: kudurru's CPU per query (all, main thread, listener Workers); API clients CPU: this process;",
  );
  print(
    "  busy CPUs: /proc/stat per CPU, whatever ran there (dnsperf, other jobs on the machine too)",
  );
  const ratio = busy.qps / idle.qps;
  print();
  print(
    `  DNS throughput busy ÷ idle: ${ratio.toFixed(2)} (target ≥ 0.90: ${
      ratio >= 0.9 ? "met" : "MISSED"
    })`,
  );
  print(
    `  API: ${load.requests} requests in ${load.seconds.toFixed(1)} s = ${
      (load.requests / load.seconds).toFixed(1)
    } requests/s, ${load.errors} errors${
      load.firstError ? ` (first: ${load.firstError})` : ""
    }`,
  );
  if (load.requests > 0) {
    const extra = busy.mainShare - idle.mainShare;
    print(
      `  kudurru's main thread: +${
        (extra * 100).toFixed(0)
      } % of a CPU under the API load = ${
        ((extra * 1000) / (load.requests / load.seconds)).toFixed(1)
      } ms of CPU per API request${
        LOAD.has("tail") ? " (the tail's cost included)" : ""
      }`,
    );
  }
  if (LOAD.has("tail")) {
    print(
      `  SSE tail: ${load.tailEvents} events (${
        (load.tailEvents / load.seconds).toFixed(0)
      }/s, ${
        (load.tailBytes / 1e6).toFixed(1)
      } MB), ${load.tailDropped} dropped by the server for a slow reader`,
    );
  }
  if (load.byPath.size > 0) {
    for (
      const line of table([
        ["  request", "count", "p50 ms", "p99 ms"],
        ...[...load.byPath].map(([path, samples]) => [
          `  ${path}`,
          String(samples.length),
          ms(percentile(samples, 50)),
          ms(percentile(samples, 99)),
        ]),
      ], false)
    ) print(line);
  }
  print();
}

await main();
