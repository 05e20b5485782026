/**
 * Cache-hit benchmark for forwarding resolvers: NSD is authoritative for a
 * ~1,000-name zone, each resolver in turn (Unbound, dnsmasq, kudurru)
 * forwards to it, has its cache warmed with every name once, and is then
 * loaded with dnsperf over UDP on the same names; prints q/s, CPU µs per
 * query and kudurru's ratios to the others. With `--misses` every query is
 * a name the resolver has not seen (a wildcard in NSD's zone answers it),
 * so each one goes upstream: the cost of a cache miss. `--ffi-sockets N`
 * serves kudurru's UDP on N libc sockets (`listeners.ffiSockets`).
 *
 *   deno run -A bench/resolver/run.ts [--duration 10] [--clients 4]
 *     [--qps 1000000] [--servers kudurru,unbound,dnsmasq] [--querylog on|off]
 *     [--pin] [--misses] [--ffi-sockets N]
 *
 * Every process is stopped at the end, even on failure; each dnsperf run is
 * killed after its bound; a server that cannot start is skipped with the
 * reason.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { clockTicks, treeCpuSeconds } from "../dnsperf/cpu_time.ts";
import { pinServer } from "../dnsperf/cpu_pinning.ts";
import { cappedNote } from "../dnsperf/qps_cap.ts";
import { settle } from "../dnsperf/settle.ts";
import { query } from "../../src/testing/dns_client.ts";
import { startKudurruResolver } from "./kudurru_resolver.ts";
import { type RunningServer, startNsd } from "../../tests/interop/peers.ts";
import { startUnbound } from "../../tests/resolver/unbound.ts";
import { startDnsmasq } from "./dnsmasq.ts";
import { type DnsperfResult, runDnsperf } from "./dnsperf_pass.ts";
import {
  MISS_ADDRESS,
  missQueryFile,
  RESOLVER_NAMES,
  RESOLVER_ZONE,
  resolverAddress,
  resolverName,
  resolverQueryFile,
  resolverZoneText,
} from "./resolver_zone.ts";

const RESOLVERS = ["kudurru", "unbound", "dnsmasq"] as const;
type ResolverName = typeof RESOLVERS[number];

interface Row {
  server: ResolverName;
  qps: number;
  cpuMicrosPerQuery: number;
  lost: string;
  noerror: string;
  /** CPU NSD used during the timed run: near zero when every query hits. */
  upstreamCpuMs: number;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    qps: { type: "string", default: "1000000" },
    servers: { type: "string", default: RESOLVERS.join(",") },
    /** "off" runs kudurru with querylog.enabled false (the peers log nothing). */
    querylog: { type: "string", default: "on" },
    /** N > 0 runs kudurru's UDP on N libc sockets (listeners.ffiSockets). */
    "ffi-sockets": { type: "string", default: "0" },
    /** Each resolver on CPU 0, dnsperf on CPU 1 (../dnsperf/cpu_pinning.ts). */
    pin: { type: "boolean", default: false },
    /** Every query a name never asked before: cache misses, not hits. */
    misses: { type: "boolean", default: false },
  },
});
const seconds = Math.min(Math.max(Number(values.duration) || 10, 1), 300);
const clients = Math.min(Math.max(Number(values.clients) || 4, 1), 256);
const maxQps = Math.max(Number(values.qps) || 1_000_000, 1);
/**
 * Distinct names for the cache-miss run: more than any resolver here asks
 * upstream in the run (dnsperf loops over the file, and a second pass would
 * be hits), bounded so the file stays under ~60 MB.
 */
const MISS_NAMES = Math.min(seconds * 100_000, 2_000_000);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${(100 * part / whole).toFixed(2)}%` : "-";
}

async function start(
  server: ResolverName,
  nsdPort: number,
): Promise<RunningServer> {
  switch (server) {
    case "unbound":
      return await startUnbound(nsdPort, RESOLVER_ZONE);
    case "dnsmasq":
      return await startDnsmasq(nsdPort, RESOLVER_ZONE);
    case "kudurru":
      return await startKudurruResolver(nsdPort, {
        queryLog: values.querylog !== "off",
        ffiSockets: Math.min(
          Math.max(Number(values["ffi-sockets"]) || 0, 0),
          8,
        ),
      });
  }
}

/**
 * Asks every name once (twice if some went missing), then checks one answer
 * by hand, so the timed run measures right answers from the cache.
 */
async function warm(
  server: ResolverName,
  running: RunningServer,
  queryFile: string,
): Promise<void> {
  let result: DnsperfResult | null = null;
  for (let pass = 0; pass < 2; pass++) {
    result = await runDnsperf({
      port: running.port,
      queryFile,
      clients: 1,
      passes: 1,
      outstanding: 20,
      killAfterMs: 60_000,
    });
    if (result.noerror === RESOLVER_NAMES) break;
  }
  if (result === null || result.noerror !== RESOLVER_NAMES) {
    throw new Error(
      `Cannot warm ${server}'s cache: ${
        result?.noerror ?? 0
      } of ${RESOLVER_NAMES} names answered NOERROR`,
    );
  }
  const probe = 7 % RESOLVER_NAMES;
  const reply = await query(running.port, resolverName(probe), "A");
  const data = reply.answers.find((r) => r.type === "A")?.data;
  if (data !== resolverAddress(probe)) {
    throw new Error(
      `${server} answered ${resolverName(probe)} A with ${reply.rcode} ${
        String(data)
      }, expected ${resolverAddress(probe)}`,
    );
  }
}

/** One name under the wildcard, asked by hand: the resolver forwards right. */
async function checkMissAnswer(
  server: ResolverName,
  running: RunningServer,
): Promise<void> {
  const probe = `probe.miss.${RESOLVER_ZONE}`;
  const reply = await query(running.port, probe, "A", { timeoutMs: 4_000 });
  const data = reply.answers.find((r) => r.type === "A")?.data;
  if (data !== MISS_ADDRESS) {
    throw new Error(
      `${server} answered ${probe} A with ${reply.rcode} ${
        String(data)
      }, expected ${MISS_ADDRESS}`,
    );
  }
}

async function measure(
  server: ResolverName,
  nsd: RunningServer,
  queryFile: string,
  ticks: number,
): Promise<Row> {
  await using running = await start(server, nsd.port);
  if (values.pin) await pinServer(running.pid);
  await settle(running.pid, ticks);
  if (values.misses) await checkMissAnswer(server, running);
  else await warm(server, running, queryFile);
  const before = treeCpuSeconds(running.pid, ticks);
  const nsdBefore = treeCpuSeconds(nsd.pid, ticks);
  const result = await runDnsperf({
    port: running.port,
    queryFile,
    clients,
    seconds,
    maxQps,
    killAfterMs: (seconds + 30) * 1000,
    pin: values.pin,
  });
  const cpu = treeCpuSeconds(running.pid, ticks) - before;
  const nsdCpu = treeCpuSeconds(nsd.pid, ticks) - nsdBefore;
  return {
    server,
    qps: result.qps,
    cpuMicrosPerQuery: result.completed > 0
      ? (cpu * 1e6) / result.completed
      : NaN,
    lost: `${result.lost} (${percent(result.lost, result.sent)})`,
    noerror: percent(result.noerror, result.completed),
    upstreamCpuMs: nsdCpu * 1000,
  };
}

function table(rows: Row[]): string[] {
  const lines = [
    "server          q/s   CPU µs/query   lost               NOERROR   NSD CPU ms",
  ];
  for (const r of rows) {
    lines.push(
      [
        r.server.padEnd(8),
        r.qps.toFixed(0).padStart(10),
        r.cpuMicrosPerQuery.toFixed(1).padStart(14),
        "  " + r.lost.padEnd(16),
        r.noerror.padStart(9),
        r.upstreamCpuMs.toFixed(0).padStart(12),
      ].join(" "),
    );
  }
  const kudurru = rows.find((r) => r.server === "kudurru");
  if (kudurru !== undefined) {
    for (const peer of rows.filter((r) => r.server !== "kudurru")) {
      lines.push(
        `kudurru / ${peer.server}: q/s ratio ${
          (kudurru.qps / peer.qps).toFixed(2)
        }, CPU per query ratio ${
          (kudurru.cpuMicrosPerQuery / peer.cpuMicrosPerQuery).toFixed(2)
        }`,
      );
    }
  }
  return lines;
}

/** The readiness probes need Deno.listenDatagram: re-run under --unstable-net. */
async function rerunWithUnstableNet(): Promise<never> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

function parseServers(list: string): ResolverName[] {
  const names = list.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const name of names) {
    if (!(RESOLVERS as readonly string[]).includes(name)) {
      throw new Error(
        `Cannot benchmark "${name}": --servers takes ${RESOLVERS.join(", ")}`,
      );
    }
  }
  return names as ResolverName[];
}

async function main(): Promise<void> {
  if (typeof Deno.listenDatagram !== "function") await rerunWithUnstableNet();
  const servers = parseServers(values.servers);
  const dir = await Deno.makeTempDir({ prefix: "kudurru-resolver-bench-" });
  try {
    const queryFile = join(dir, "queries.txt");
    await Deno.writeTextFile(
      queryFile,
      values.misses ? missQueryFile(MISS_NAMES) : resolverQueryFile(),
    );
    const ticks = await clockTicks();
    await using nsd = await startNsd([
      { name: RESOLVER_ZONE, text: resolverZoneText() },
    ]);
    const rows: Row[] = [];
    for (const server of servers) {
      try {
        rows.push(await measure(server, nsd, queryFile, ticks));
      } catch (error) {
        print(`${server} skipped: ${(error as Error).message}`);
      }
    }
    print(
      values.misses
        ? `cache misses over UDP: ${MISS_NAMES} distinct names, each forwarded to NSD, dnsperf ${seconds}s, ${clients} clients, at most ${maxQps} q/s`
        : `cache hits over UDP: ${RESOLVER_NAMES} names warmed once, dnsperf ${seconds}s, ${clients} clients, at most ${maxQps} q/s`,
    );
    for (const line of table(rows)) print(line);
    for (const line of cappedNote(rows, maxQps)) print(line);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
