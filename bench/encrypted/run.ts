/**
 * Cache hits over DNS over TLS and DNS over HTTPS, kudurru against Unbound,
 * in one run: NSD is authoritative for the ~1,000-name zone of
 * ../resolver, each resolver in turn forwards to it, has its cache warmed
 * over plain UDP and then over each encrypted transport, and is loaded with
 * `dnsperf -m dot` and with h2load (HTTP/2 over TLS, GET `?dns=`); prints
 * q/s, CPU µs per query (the resolver's process tree) and kudurru's ratios.
 *
 *   deno run -A bench/encrypted/run.ts [--duration 10] [--clients 4]
 *     [--rounds 1] [--servers kudurru,unbound] [--transports dot,doh]
 *     [--querylog on|off] [--pin]
 *
 * Unbound runs with one thread and kudurru's DoT listener is one worker,
 * so each row is one core's worth of a server. A transport a server cannot
 * serve (kudurru without a DoH listener) is reported as skipped with the
 * reason, the other transport is still measured. Every process is stopped
 * before the next server starts and at the end, also on failure; every
 * load run is killed after its bound.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { clockTicks, treeCpuSeconds } from "../dnsperf/cpu_time.ts";
import { pinServer } from "../dnsperf/cpu_pinning.ts";
import { medianSummary, roundOrder } from "../dnsperf/rounds.ts";
import { settle } from "../dnsperf/settle.ts";
import { startNsd } from "../../tests/interop/peers.ts";
import type { RunningServer } from "../../src/testing/server_process.ts";
import { makeTestCertificates } from "../../src/upstream/testdata/certs.ts";
import {
  RESOLVER_NAMES,
  RESOLVER_ZONE,
  resolverQueryFile,
  resolverZoneText,
} from "../resolver/resolver_zone.ts";
import type { EncryptedTransport } from "./probe.ts";
import {
  type BenchTls,
  type ServerName,
  SERVERS,
  startEncrypted,
} from "./servers.ts";
import {
  dohStreams,
  loadOnce,
  type LoadSetup,
  OUTSTANDING,
  warmOverUdp,
  warmTransport,
} from "./passes.ts";
import { cpuRatioMedians, type Row, table } from "./report.ts";

const TRANSPORTS = ["dot", "doh"] as const;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    rounds: { type: "string", default: "1" },
    servers: { type: "string", default: SERVERS.join(",") },
    transports: { type: "string", default: TRANSPORTS.join(",") },
    /** "off" runs kudurru with querylog.enabled false (Unbound logs nothing). */
    querylog: { type: "string", default: "on" },
    /** Each resolver on CPU 0, the load generator on CPU 1. */
    pin: { type: "boolean", default: false },
  },
});
const seconds = Math.min(Math.max(Number(values.duration) || 10, 1), 300);
/**
 * At most 10: Unbound accepts 10 TCP connections per thread by default
 * (`incoming-num-tcp`), and a bench with more would measure that limit.
 */
const clients = Math.min(Math.max(Number(values.clients) || 4, 1), 10);
const rounds = Math.min(
  Math.max(Math.trunc(Number(values.rounds)) || 1, 1),
  10,
);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

function parseList<T extends string>(
  list: string,
  allowed: readonly T[],
  option: string,
): T[] {
  const names = list.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const name of names) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw new Error(
        `Cannot benchmark "${name}": --${option} takes ${allowed.join(", ")}`,
      );
    }
  }
  return names as T[];
}

/**
 * One server over every transport: started, pinned, settled, warmed, then
 * each transport probed, warmed and loaded. Skips come back as lines.
 */
async function measure(
  server: ServerName,
  nsd: RunningServer,
  setup: LoadSetup,
  transports: readonly EncryptedTransport[],
  ticks: number,
): Promise<{ rows: Row[]; skipped: string[] }> {
  const started = await startEncrypted(server, {
    upstreamPort: nsd.port,
    readyZone: RESOLVER_ZONE,
    tls: setup.tls,
    transports,
    queryLog: values.querylog !== "off",
  });
  const rows: Row[] = [];
  const skipped: string[] = [];
  try {
    const pid = started.running.pid;
    if (values.pin) await pinServer(pid);
    await settle(pid, ticks);
    await warmOverUdp(server, started.running.port, setup);
    for (const transport of transports) {
      const port = started.ports[transport];
      const why = started.skipped[transport];
      if (port === undefined || why !== undefined) {
        skipped.push(`${server} ${transport} skipped: ${why ?? "no port"}`);
        continue;
      }
      try {
        await warmTransport(server, transport, port, setup);
        const before = treeCpuSeconds(pid, ticks);
        const nsdBefore = treeCpuSeconds(nsd.pid, ticks);
        const load = await loadOnce(transport, port, setup);
        const cpu = treeCpuSeconds(pid, ticks) - before;
        rows.push({
          server,
          transport,
          qps: load.qps,
          cpuMicrosPerQuery: load.answered > 0
            ? (cpu * 1e6) / load.answered
            : NaN,
          lost: load.lost,
          ok: load.ok,
          upstreamCpuMs: (treeCpuSeconds(nsd.pid, ticks) - nsdBefore) * 1000,
        });
      } catch (error) {
        skipped.push(
          `${server} ${transport} skipped: ${(error as Error).message}`,
        );
      }
    }
  } finally {
    await started.running.stop();
  }
  return { rows, skipped };
}

/** What every round measured, above its table. */
function heading(): string {
  return `cache hits over DoT (dnsperf -m dot) and DoH (h2load, GET): ${RESOLVER_NAMES} names warmed, ${seconds}s per run, ${clients} connections, ${OUTSTANDING} queries in flight (DoH: ${
    dohStreams(clients)
  } streams per connection); Unbound num-threads 1, kudurru one DoT worker`;
}

/** The readiness probes need Deno.listenDatagram: re-run under --unstable-net. */
async function rerunWithUnstableNet(): Promise<never> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

/** Writes the certificate and the query file the loads share. */
async function prepare(dir: string): Promise<LoadSetup> {
  const certs = await makeTestCertificates();
  const tls: BenchTls = {
    certFile: join(dir, "cert.pem"),
    keyFile: join(dir, "key.pem"),
    cert: certs.cert,
    key: certs.key,
  };
  await Deno.writeTextFile(tls.certFile, certs.cert);
  await Deno.writeTextFile(tls.keyFile, certs.key, { mode: 0o600 });
  const queryFile = join(dir, "queries.txt");
  await Deno.writeTextFile(queryFile, resolverQueryFile());
  return {
    dir,
    tls,
    caCert: certs.caCert,
    queryFile,
    seconds,
    clients,
    pin: values.pin,
  };
}

async function main(): Promise<void> {
  if (typeof Deno.listenDatagram !== "function") await rerunWithUnstableNet();
  const servers = parseList(values.servers, SERVERS, "servers");
  const transports = parseList(values.transports, TRANSPORTS, "transports");
  const dir = await Deno.makeTempDir({ prefix: "kudurru-encrypted-bench-" });
  try {
    const setup = await prepare(dir);
    const ticks = await clockTicks();
    await using nsd = await startNsd([
      { name: RESOLVER_ZONE, text: resolverZoneText() },
    ]);
    const all: Row[][] = [];
    for (let round = 0; round < rounds; round++) {
      const rows: Row[] = [];
      const skipped: string[] = [];
      for (const server of roundOrder(servers, round)) {
        try {
          const done = await measure(server, nsd, setup, transports, ticks);
          rows.push(...done.rows);
          skipped.push(...done.skipped);
        } catch (error) {
          skipped.push(`${server} skipped: ${(error as Error).message}`);
        }
      }
      print(`${rounds > 1 ? `round ${round + 1}: ` : ""}${heading()}`);
      for (const line of [...table(rows), ...skipped]) print(line);
      all.push(rows);
    }
    if (rounds > 1) {
      for (const line of [...medianSummary(all), ...cpuRatioMedians(all)]) {
        print(line);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
