/**
 * The passes one resolver goes through: its cache warmed over plain UDP,
 * then per encrypted transport a hand-checked answer, one unmeasured pass
 * over every name, and the timed load.
 *
 * Why a warm pass per transport after the UDP one: each kudurru listener
 * worker keeps its own cache (src/listeners/README.md), so the UDP pass
 * fills the UDP worker's and the DoT worker starts cold; Unbound's one
 * thread shares one cache, and gets the same passes so both are treated
 * alike. The pass also runs the code paths once before they are timed.
 */
import { join } from "node:path";
import { query } from "../../src/testing/dns_client.ts";
import { type DnsperfResult, runDnsperf } from "../resolver/dnsperf_pass.ts";
import {
  RESOLVER_NAMES,
  resolverAddress,
  resolverName,
} from "../resolver/resolver_zone.ts";
import { dohUriFile, runH2load } from "./doh_load.ts";
import { runDotLoad } from "./dot_load.ts";
import { checkAnswer, DOH_PATH, type EncryptedTransport } from "./probe.ts";
import type { BenchTls } from "./servers.ts";

/**
 * Queries in flight during a timed load, over all connections: dnsperf's
 * default `-q`, and for h2load split into streams per connection.
 */
export const OUTSTANDING = 100;

/** h2load's `-m`: OUTSTANDING spread over the connections. */
export function dohStreams(clients: number): number {
  return Math.ceil(OUTSTANDING / clients);
}

/** What every pass needs. */
export interface LoadSetup {
  /** Temporary directory for the URI files. */
  dir: string;
  tls: BenchTls;
  /** The CA the hand-checked answers trust. */
  caCert: string;
  /** dnsperf's file: every name once. */
  queryFile: string;
  seconds: number;
  clients: number;
  pin: boolean;
}

/** What a timed load measured. */
export interface LoadResult {
  qps: number;
  /** Answers the CPU time is divided by. */
  answered: number;
  lost: string;
  ok: string;
}

/** The name every hand-checked answer asks for. */
const PROBE = 7 % RESOLVER_NAMES;

/** A warm-up pass is killed after this long. */
const WARM_KILL_MS = 60_000;

function percent(part: number, whole: number): string {
  return whole > 0 ? `${(100 * part / whole).toFixed(2)}%` : "-";
}

/**
 * Asks every name once over UDP (twice if some went missing), then one by
 * hand, so the timed runs measure right answers from the cache.
 */
export async function warmOverUdp(
  server: string,
  port: number,
  setup: LoadSetup,
): Promise<void> {
  let result: DnsperfResult | null = null;
  for (let pass = 0; pass < 2; pass++) {
    result = await runDnsperf({
      port,
      queryFile: setup.queryFile,
      clients: 1,
      passes: 1,
      outstanding: 20,
      killAfterMs: WARM_KILL_MS,
    });
    if (result.noerror === RESOLVER_NAMES) break;
  }
  if (result === null || result.noerror !== RESOLVER_NAMES) {
    throw new Error(
      `Cannot warm ${server}'s cache over UDP: ${
        result?.noerror ?? 0
      } of ${RESOLVER_NAMES} names answered NOERROR`,
    );
  }
  const reply = await query(port, resolverName(PROBE), "A");
  const data = reply.answers.find((r) => r.type === "A")?.data;
  if (data !== resolverAddress(PROBE)) {
    throw new Error(
      `${server} answered ${
        resolverName(PROBE)
      } A over UDP with ${reply.rcode} ${String(data)}, expected ${
        resolverAddress(PROBE)
      }`,
    );
  }
}

/** h2load's URI file for the DoH endpoint on `port`, written once. */
async function uriFile(port: number, setup: LoadSetup): Promise<string> {
  const file = join(setup.dir, `doh-uris-${port}.txt`);
  const names = Array.from(
    { length: RESOLVER_NAMES },
    (_, i) => resolverName(i),
  );
  await Deno.writeTextFile(file, dohUriFile(port, DOH_PATH, names));
  return file;
}

/**
 * One answer checked by hand over `transport` (the certificate, the
 * address), then every name once over it; throws when some went missing.
 */
export async function warmTransport(
  server: string,
  transport: EncryptedTransport,
  port: number,
  setup: LoadSetup,
): Promise<void> {
  await checkAnswer(
    transport,
    port,
    setup.caCert,
    resolverName(PROBE),
    resolverAddress(PROBE),
  );
  const answered = transport === "dot"
    ? (await runDotLoad({
      port,
      queryFile: setup.queryFile,
      clients: 1,
      outstanding: 20,
      passes: 1,
      killAfterMs: WARM_KILL_MS,
    })).noerror
    : (await runH2load({
      uriFile: await uriFile(port, setup),
      clients: 1,
      streams: 20,
      requests: RESOLVER_NAMES,
      killAfterMs: WARM_KILL_MS,
    })).ok;
  if (answered !== RESOLVER_NAMES) {
    throw new Error(
      `Cannot warm ${server} over ${transport}: ${answered} of ${RESOLVER_NAMES} names answered ${
        transport === "dot" ? "NOERROR" : "with HTTP 2xx"
      }`,
    );
  }
}

/** The timed load over `transport` for `setup.seconds`. */
export async function loadOnce(
  transport: EncryptedTransport,
  port: number,
  setup: LoadSetup,
): Promise<LoadResult> {
  const killAfterMs = (setup.seconds + 30) * 1000;
  if (transport === "dot") {
    const r = await runDotLoad({
      port,
      queryFile: setup.queryFile,
      clients: setup.clients,
      outstanding: OUTSTANDING,
      seconds: setup.seconds,
      killAfterMs,
      pin: setup.pin,
    });
    return {
      qps: r.qps,
      answered: r.completed,
      lost: `${r.lost} (${percent(r.lost, r.sent)})`,
      ok: percent(r.noerror, r.completed),
    };
  }
  const r = await runH2load({
    uriFile: await uriFile(port, setup),
    clients: setup.clients,
    streams: dohStreams(setup.clients),
    seconds: setup.seconds,
    killAfterMs,
    pin: setup.pin,
  });
  return {
    qps: r.seconds > 0 ? r.ok / r.seconds : 0,
    answered: r.ok,
    lost: `${r.notOk} (${percent(r.notOk, r.ok + r.notOk)})`,
    ok: percent(r.ok, r.ok + r.notOk),
  };
}
