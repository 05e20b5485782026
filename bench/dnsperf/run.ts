/**
 * dnsperf against kudurru, NSD and Knot in one run, on the same ~10,000-name
 * zone, over UDP and TCP; prints q/s, CPU µs per query and kudurru's ratios.
 *
 *   deno run -A bench/dnsperf/run.ts [--duration 10] [--clients 4] [--qps 1000000]
 *     [--servers kudurru,kudurru-nolog,kudurru-ffi,kudurru-ffi-nolog,nsd,knot] [--pin]
 *     [--ffi-sockets 1] [--rounds 1]
 *
 * kudurru-nolog is kudurru with `querylog.enabled: false`: the ratio of the
 * two is what logging every query costs (target: at most 10 %).
 * kudurru-ffi serves UDP on libc sockets (`listeners.ffiSockets`, the
 * opt-in fast mode; `--ffi-sockets N` of them per address); kudurru-ffi-nolog
 * is the same without the query log.
 * For kudurru the CPU per query is also split by thread (main thread,
 * listener Workers, V8's GC and compiler threads): steadier than throughput
 * on a shared machine, and it says where logging's cost goes. With --qps
 * below what the servers can do, every server answers the same load. The
 * last column counts cross-CPU interrupts per query (machine-wide): see
 * cross_cpu_interrupts.ts for why kudurru's UDP runs come in two modes.
 * `--pin` puts each server on CPU 0 and dnsperf on CPU 1 (cpu_pinning.ts),
 * which keeps kudurru in one mode.
 * `--rounds N` measures the servers N times, the order reversed every
 * other round, and ends with medians (rounds.ts): single runs swing ±10 %.
 *
 * Every server is stopped before the next starts, and at the end, even on
 * failure; a server that cannot start is skipped with the reason.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  BENCH_ZONE,
  benchQueryFile,
  benchRecordSets,
  benchZone,
} from "./bench_zone.ts";
import {
  clockTicks,
  type ThreadKind,
  threadTicks,
  ticksBetween,
  treeCpuSeconds,
} from "./cpu_time.ts";
import { crossCpuInterrupts } from "./cross_cpu_interrupts.ts";
import { cappedNote } from "./qps_cap.ts";
import { settle } from "./settle.ts";
import { medianSummary, roundOrder } from "./rounds.ts";
import { dnsperfCommand, pinServer } from "./cpu_pinning.ts";
import { renderZoneFile } from "../../tests/interop/zone_file.ts";
import {
  type RunningServer,
  startKnot,
  startNsd,
} from "../../tests/interop/peers.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { freePort } from "../../src/testing/free_port.ts";

type ServerName =
  | "kudurru"
  | "kudurru-nolog"
  | "kudurru-ffi"
  | "kudurru-ffi-nolog"
  | "nsd"
  | "knot";
type Transport = "udp" | "tcp";

interface Row {
  server: ServerName;
  transport: Transport;
  qps: number;
  cpuMicrosPerQuery: number;
  lost: string;
  /** Machine-wide cross-CPU interrupts per query (cross_cpu_interrupts.ts). */
  ipisPerQuery: number;
  /** kudurru only: CPU µs per query by kind of thread. */
  threads?: Record<ThreadKind, number>;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    qps: { type: "string", default: "1000000" },
    servers: { type: "string", default: "kudurru,kudurru-nolog,nsd,knot" },
    pin: { type: "boolean", default: false },
    "ffi-sockets": { type: "string", default: "1" },
    rounds: { type: "string", default: "1" },
  },
});
const seconds = Math.min(Math.max(Number(values.duration), 1), 300);
const clients = Math.min(Math.max(Number(values.clients), 1), 256);
const maxQps = Math.max(Number(values.qps), 1);
/** Times the servers are measured (rounds.ts). */
const rounds = Math.min(
  Math.max(Math.trunc(Number(values.rounds)) || 1, 1),
  10,
);
/** kudurru-ffi's sockets per address (`listeners.sockets`). */
const ffiSockets = Math.min(Math.max(Number(values["ffi-sockets"]), 1), 8);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

async function start(server: ServerName): Promise<RunningServer> {
  const zone = benchZone();
  const sets = benchRecordSets();
  if (server.startsWith("kudurru")) {
    return await startKudurru({
      objects: [zone, ...sets],
      readyZone: BENCH_ZONE,
      upstreamPort: freePort(),
      ...(server.endsWith("-nolog") &&
        { extraConfig: { querylog: { enabled: false } } }),
      ...(server.includes("-ffi") && { ffiSockets }),
    });
  }
  const zones = [{ name: BENCH_ZONE, text: renderZoneFile(zone, sets) }];
  return server === "nsd" ? await startNsd(zones) : await startKnot(zones);
}

/** A short unmeasured run before the measured ones. */
const WARM_UP_SECONDS = 2;

async function dnsperf(
  port: number,
  queryFile: string,
  transport: Transport,
  length = seconds,
): Promise<{ qps: number; completed: number; lost: string }> {
  const args = ["-s", "127.0.0.1", "-p", String(port), "-d", queryFile];
  args.push("-l", String(length), "-c", String(clients), "-Q", String(maxQps));
  if (transport === "tcp") args.push("-m", "tcp");
  const run = dnsperfCommand(args, values.pin);
  const child = new Deno.Command(run.command, {
    args: run.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout((length + 30) * 1000),
  });
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  const qps = /Queries per second:\s+([\d.]+)/.exec(text);
  const completed = /Queries completed:\s+(\d+)/.exec(text);
  const lost = /Queries lost:\s+(\d+ \([\d.]+%\))/.exec(text);
  if (!qps || !completed) {
    throw new Error(`Cannot read the dnsperf result on port ${port}:\n${text}`);
  }
  return {
    qps: Number(qps[1]),
    completed: Number(completed[1]),
    lost: lost?.[1] ?? "?",
  };
}

async function measure(
  server: ServerName,
  queryFile: string,
  ticks: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  await using running = await start(server);
  if (values.pin) await pinServer(running.pid);
  await settle(running.pid, ticks);
  const isKudurru = server.startsWith("kudurru");
  // Start-up work (objects, snapshot, JIT, the answer memo) stays out.
  await dnsperf(running.port, queryFile, "udp", WARM_UP_SECONDS);
  for (const transport of ["udp", "tcp"] as const) {
    const before = treeCpuSeconds(running.pid, ticks);
    const threadsBefore = isKudurru ? threadTicks(running.pid) : undefined;
    const ipisBefore = crossCpuInterrupts();
    const result = await dnsperf(running.port, queryFile, transport);
    const cpu = treeCpuSeconds(running.pid, ticks) - before;
    const ipis = crossCpuInterrupts() - ipisBefore;
    const perQuery = (seconds: number) =>
      result.completed > 0 ? (seconds * 1e6) / result.completed : NaN;
    const row: Row = {
      server,
      transport,
      qps: result.qps,
      cpuMicrosPerQuery: perQuery(cpu),
      lost: result.lost,
      ipisPerQuery: result.completed > 0 ? ipis / result.completed : NaN,
    };
    if (threadsBefore !== undefined) {
      const used = ticksBetween(threadsBefore, threadTicks(running.pid));
      row.threads = Object.fromEntries(
        Object.entries(used).map(([kind, t]) => [kind, perQuery(t / ticks)]),
      ) as Record<ThreadKind, number>;
    }
    rows.push(row);
  }
  return rows;
}

function table(rows: Row[]): string[] {
  const kudurru = (t: Transport) =>
    rows.find((r) => r.server === "kudurru" && r.transport === t);
  const lines = [
    "server          transport        q/s   CPU µs/query   lost            kudurru q/s ratio   kudurru CPU ratio   IPIs/query",
  ];
  for (const r of rows) {
    const k = kudurru(r.transport);
    const ratio = (x: number | undefined, y: number) =>
      x === undefined || r.server === "kudurru" ? "-" : (x / y).toFixed(2);
    lines.push(
      [
        r.server.padEnd(15),
        r.transport.padEnd(9),
        r.qps.toFixed(0).padStart(10),
        r.cpuMicrosPerQuery.toFixed(1).padStart(14),
        "  " + r.lost.padEnd(16),
        ratio(k?.qps, r.qps).padStart(17),
        ratio(k?.cpuMicrosPerQuery, r.cpuMicrosPerQuery).padStart(19),
        r.ipisPerQuery.toFixed(3).padStart(12),
      ].join(" "),
    );
  }
  const split = rows.filter((r) => r.threads !== undefined);
  if (split.length > 0) {
    lines.push(
      "",
      "kudurru CPU µs/query by thread (main / workers / v8 helpers / other):",
    );
    for (const r of split) {
      const t = r.threads!;
      lines.push(
        `${r.server.padEnd(15)} ${r.transport.padEnd(9)} ` +
          [t.main, t.workers, t["v8 helpers"], t.other]
            .map((x) => x.toFixed(2)).join(" / "),
      );
    }
  }
  return lines;
}

/** The loopback clients need Deno.listenDatagram: re-run under --unstable-net. */
async function rerunWithUnstableNet(): Promise<never> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

async function main(): Promise<void> {
  if (typeof Deno.listenDatagram !== "function") await rerunWithUnstableNet();
  const servers = values.servers.split(",").map((s) =>
    s.trim()
  ) as ServerName[];
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dnsperf-" });
  try {
    const queryFile = join(dir, "queries.txt");
    await Deno.writeTextFile(queryFile, benchQueryFile());
    const ticks = await clockTicks();
    const all: Row[][] = [];
    for (let round = 0; round < rounds; round++) {
      const rows: Row[] = [];
      for (const server of roundOrder(servers, round)) {
        try {
          rows.push(...await measure(server, queryFile, ticks));
        } catch (error) {
          print(`${server} skipped: ${(error as Error).message}`);
        }
      }
      print(
        `${
          rounds > 1 ? `round ${round + 1}: ` : ""
        }dnsperf ${seconds}s per run, ${clients} clients, at most ${maxQps} q/s, ${
          benchRecordSets().reduce((n, s) => n + s.spec!.endpoints.length, 0)
        } endpoints`,
      );
      for (const line of table(rows)) print(line);
      for (const line of cappedNote(rows, maxQps)) print(line);
      all.push(rows);
    }
    if (rounds > 1) { for (const line of medianSummary(all)) print(line); }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
