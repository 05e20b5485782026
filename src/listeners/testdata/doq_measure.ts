/**
 * Measures the DoQ listener (doq.ts) from outside: a server process with
 * the test handler, and a client here that makes a bounded number of
 * handshakes, then a bounded number of queries on one connection, then
 * holds a bounded number of connections open. The server's CPU time
 * (utime + stime from /proc, all its threads) per handshake and per query
 * is what DOQ_HANDSHAKES_PER_SECOND is set from; the growth of its resident
 * memory with the connections held open is what a connection costs.
 *
 *   deno run --unstable-net -A src/listeners/testdata/doq_measure.ts \
 *     [handshakes=200] [queries=5000] [concurrency=32] [held=200]
 *
 * Linux only (/proc). Loopback only.
 */
import { makeTestCertificates } from "../../upstream/testdata/certs.ts";
import { memoryLogger } from "../../log/logger.ts";
import { buildQuery } from "../../testing/dns_client.ts";
import { emptySocketCounters } from "../worker_messages.ts";
import { serveDoq } from "../doq.ts";
import { connectDoq } from "../doq_client.ts";
import { createTestHandler } from "./test_handler.ts";

function print(text: string | number) {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

if (Deno.args[0] === "serve") {
  const pair = JSON.parse(Deno.args[1]!) as { cert: string; key: string };
  const logger = memoryLogger("error");
  const server = serveDoq({
    hostname: "127.0.0.1",
    port: 0,
    handler: createTestHandler({ logger }),
    counters: emptySocketCounters(),
    logger,
    certificate: pair,
    handshakesPerSecond: 1_000_000,
  });
  print(server.addr.port);
  // Ends when the measuring process kills it.
  await new Promise(() => {});
}

const handshakes = Number(Deno.args[0] ?? 200);
const queries = Number(Deno.args[1] ?? 5000);
const concurrency = Number(Deno.args[2] ?? 32);
const held = Number(Deno.args[3] ?? 200);

const certs = await makeTestCertificates();
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--unstable-net",
    "-A",
    import.meta.filename!,
    "serve",
    JSON.stringify({ cert: certs.cert, key: certs.key }),
  ],
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
const port = Number((await reader.read()).value!.trim());

/** The server's CPU seconds so far (all threads). */
async function serverCpu(): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100; // USER_HZ
}

/** The server's resident memory in KiB. */
async function serverRss(): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

const connect = () =>
  connectDoq({ hostname: "127.0.0.1", port, caCerts: [certs.caCert] });

try {
  // Warm up (JIT, first allocations) before counting.
  for (let i = 0; i < 20; i++) (await connect()).close();
  await new Promise((r) => setTimeout(r, 200));

  let cpu = await serverCpu();
  let started = performance.now();
  for (let i = 0; i < handshakes; i++) {
    const client = await connect();
    client.close();
  }
  let wall = performance.now() - started;
  await new Promise((r) => setTimeout(r, 200));
  let used = (await serverCpu()) - cpu;
  print(
    `handshakes: ${handshakes} in ${wall.toFixed(0)} ms wall, ` +
      `server CPU ${(used * 1000 / handshakes).toFixed(2)} ms each`,
  );

  const client = await connect();
  const message = buildQuery(0, "bench.test");
  cpu = await serverCpu();
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < queries) await client.query(message);
    }),
  );
  wall = performance.now() - started;
  used = (await serverCpu()) - cpu;
  print(
    `queries: ${queries} on one connection, ${concurrency} at once, ` +
      `${(queries / wall * 1000).toFixed(0)}/s, ` +
      `server CPU ${(used * 1e6 / queries).toFixed(0)} µs each`,
  );
  client.close();

  await new Promise((r) => setTimeout(r, 500));
  const rss = await serverRss();
  const open = [];
  for (let i = 0; i < held; i++) {
    const c = await connect();
    await c.query(message);
    open.push(c);
  }
  await new Promise((r) => setTimeout(r, 500));
  const grown = (await serverRss()) - rss;
  print(
    `connections: ${held} held open, server memory +${grown} KiB, ` +
      `${(grown / held).toFixed(0)} KiB each`,
  );
  for (const c of open) c.close();
} finally {
  child.kill();
  await child.status;
}
