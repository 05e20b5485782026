/**
 * How long a client waits for its answer when every upstream is silent
 * (the goal: every query gets an answer, stale or SERVFAIL with an Extended
 * DNS Error, within 2 s): kudurru's default group points at a UDP socket that
 * reads and never answers, one query warms the path up, then `--queries`
 * distinct names are sent at once and each answer's delay is measured from
 * its send. Prints how many were answered, with which RCODEs, and the
 * delays' minimum, median, 99th percentile and maximum.
 *
 *   deno run -A --unstable-net bench/resolver/failure_latency.ts [--queries 200]
 */
import { parseArgs } from "node:util";
import { query, queryMessage } from "../../src/testing/dns_client.ts";
import { startKudurruResolver } from "./kudurru_resolver.ts";
import { rcodeName } from "../../src/dns/wire/rcode_name.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { queries: { type: "string", default: "200" } },
});
const count = Math.min(Math.max(Number(values.queries) || 200, 1), 900);

/** Longest wait for the last answer: the 2 s timeout and then some. */
const GIVE_UP_MS = 8_000;

async function main(): Promise<void> {
  const silent = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const swallow = (async () => {
    const buf = new Uint8Array(4096);
    for (;;) await silent.receive(buf);
  })().catch(() => {});
  try {
    await using kudurru = await startKudurruResolver(
      (silent.addr as Deno.NetAddr).port,
    );
    await query(kudurru.port, "warm-up.example.", "A", { timeoutMs: 4_000 });
    const delays = await burst(kudurru.port);
    report(delays);
  } finally {
    silent.close();
    await swallow;
  }
}

/** Sends `count` distinct queries at once; each answer's delay by rcode. */
async function burst(port: number): Promise<Map<string, number[]>> {
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const sentAt = new Map<number, number>();
  const delays = new Map<string, number[]>();
  let answered = 0;
  const to = { transport: "udp" as const, hostname: "127.0.0.1", port };
  const tag = Date.now().toString(36);
  for (let id = 0; id < count; id++) {
    const message = queryMessage(`q${id}-${tag}.example.`, "A", { id });
    sentAt.set(id, performance.now());
    await client.send(message, to);
  }
  const timer = setTimeout(() => client.close(), GIVE_UP_MS);
  try {
    const buf = new Uint8Array(4096);
    while (answered < count) {
      const [reply] = await client.receive(buf);
      const id = (reply[0]! << 8) | reply[1]!;
      const started = sentAt.get(id);
      if (started === undefined) continue;
      sentAt.delete(id);
      answered++;
      const rcode = rcodeName(reply[3]! & 0x0f);
      const list = delays.get(rcode) ?? [];
      list.push(performance.now() - started);
      delays.set(rcode, list);
    }
  } catch {
    // closed by the timer: the rest never came
  } finally {
    clearTimeout(timer);
    try {
      client.close();
    } catch {
      // already closed by the timer
    }
  }
  return delays;
}

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

function report(delays: Map<string, number[]>): void {
  const all = [...delays.values()].flat().sort((a, b) => a - b);
  const at = (q: number) =>
    all[Math.min(all.length - 1, Math.floor(q * all.length))];
  const ms = (v: number | undefined) =>
    v === undefined ? "-" : `${v.toFixed(1)} ms`;
  const rcodes = [...delays].map(([r, l]) => `${r} ${l.length}`).join(", ");
  print(
    `${count} queries at once, every upstream silent: ${all.length} answered (${
      rcodes || "none"
    })`,
  );
  print(
    `delay: min ${ms(all[0])}, median ${ms(at(0.5))}, p99 ${
      ms(at(0.99))
    }, max ${ms(all.at(-1))}`,
  );
}

await main();
