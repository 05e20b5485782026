/**
 * The writer as kudurru runs it: fed by a real Worker that records events
 * the way a listener does under dnsperf (the same 10,000 names in turn,
 * fresh strings for each query, batches posted every 250 ms with their
 * arrays transferred, and transferred back once written), at a fixed rate.
 * Prints the main thread's own CPU time per event: what logging takes from
 * the thread the API and the control plane share, apart from the worker's
 * and the GC threads' share.
 *
 *   deno run -A bench/querylog/worker_fed.ts [--rate 25000] [--seconds 10]
 *
 * -A because Deno lets a process read its own /proc entries (the main
 * thread's CPU time, Linux only) with full permissions only.
 */
import { parseArgs } from "node:util";
import { querylogSchema } from "../../src/config/schema_resolver.ts";
import { createLogger } from "../../src/log/logger.ts";
import { QueryEventReceiver } from "../../src/pipeline/query_event_receiver.ts";
import { createQueryLogWriter } from "../../src/querylog/writer.ts";
import { print } from "./print.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rate: { type: "string", default: "25000" },
    seconds: { type: "string", default: "10" },
  },
});
const rate = Math.min(Math.max(Number(values.rate), 100), 200_000);
const seconds = Math.min(Math.max(Number(values.seconds), 1), 120);

/** CPU time (ms) of the main thread so far. */
function mainThreadCpuMs(): number {
  const stat = Deno.readTextFileSync(`/proc/${Deno.pid}/task/${Deno.pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const dir = await Deno.makeTempDir({ prefix: "kudurru-querylog-fed-" });
const writer = createQueryLogWriter({
  path: `${dir}/querylog.db`,
  node: "bench",
  settings: querylogSchema.parse({}),
  logger: createLogger({ level: "warn" }),
  retentionIntervalMs: 0,
});
const producer = new Worker(
  new URL("./worker_fed_producer.ts", import.meta.url),
  { type: "module" },
);
const receiver = new QueryEventReceiver();
producer.onmessage = (m) => {
  const batch = receiver.receive(m.data)!;
  // As listener_worker_client.ts does: the arrays go back to be filled again.
  batch.release = () =>
    producer.postMessage({ times: batch.times, ints: batch.ints }, [
      batch.times.buffer as ArrayBuffer,
      batch.ints.buffer as ArrayBuffer,
    ]);
  writer.enqueuePacked(batch);
};
producer.postMessage({ rate });
try {
  // Past the first pass over the names (dictionary inserts) and the JIT.
  await new Promise((r) => setTimeout(r, 2000));
  const cpu = mainThreadCpuMs();
  const written = writer.stats().written;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const events = writer.stats().written - written;
  const ms = mainThreadCpuMs() - cpu;
  print(
    `writer fed by a worker at ${rate} events/s: main thread ${ms} ms CPU ` +
      `for ${events} events = ${(ms * 1000 / events).toFixed(2)} µs/event ` +
      `(dropped ${writer.stats().dropped})`,
  );
} finally {
  producer.terminate();
  await writer.close();
  await Deno.remove(dir, { recursive: true });
}
