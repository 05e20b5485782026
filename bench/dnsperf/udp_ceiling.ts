/**
 * The socket loop's ceiling on this machine: dnsperf against a trivial
 * wire-level UDP responder in a Worker (udp_echo_worker.ts), in several
 * loop shapes, so kudurru's UDP figures can be read against what
 * `Deno.listenDatagram` alone allows.
 *
 *   deno run -A --unstable-net bench/dnsperf/udp_ceiling.ts [--duration 10] [--clients 4] [--pin]
 *
 * `--pin` runs this process (the responder's worker with it) on one CPU and
 * dnsperf on the other, as `run.ts --pin` does for the servers.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { benchQueryFile } from "./bench_zone.ts";
import { clockTicks, treeCpuSeconds } from "./cpu_time.ts";
import { dnsperfCommand, pinServer } from "./cpu_pinning.ts";
import type { EchoShape } from "./udp_echo_worker.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    pin: { type: "boolean", default: false },
  },
});
const seconds = Math.min(Math.max(Number(values.duration), 1), 300);
const clients = Math.min(Math.max(Number(values.clients), 1), 256);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

async function startEcho(shape: EchoShape, loops: number) {
  const worker = new Worker(
    new URL("./udp_echo_worker.ts", import.meta.url).href,
    { type: "module" },
  );
  const ready = Promise.withResolvers<number>();
  worker.onmessage = (e: MessageEvent<{ port: number }>) =>
    ready.resolve(e.data.port);
  worker.postMessage({ shape, loops });
  return { worker, port: await ready.promise };
}

async function dnsperf(port: number, queryFile: string) {
  const run = dnsperfCommand([
    ...["-s", "127.0.0.1", "-p", String(port), "-d", queryFile],
    ...["-l", String(seconds), "-c", String(clients), "-Q", "200000"],
  ], values.pin);
  const out = await new Deno.Command(run.command, {
    args: run.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout((seconds + 30) * 1000),
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(text)?.[1]);
  const completed = Number(/Queries completed:\s+(\d+)/.exec(text)?.[1]);
  return { qps, completed };
}

const dir = await Deno.makeTempDir({ prefix: "kudurru-udp-ceiling-" });
try {
  const queryFile = join(dir, "queries.txt");
  await Deno.writeTextFile(queryFile, benchQueryFile());
  const ticks = await clockTicks();
  const shapes: [EchoShape, number][] = [
    ["await-send", 1],
    ["one-loop", 1],
    ["loops", 2],
    ["loops", 4],
    ["loops", 8],
  ];
  print("shape           q/s   CPU µs/query (whole process)");
  for (const [shape, loops] of shapes) {
    const { worker, port } = await startEcho(shape, loops);
    if (values.pin) await pinServer(Deno.pid);
    try {
      const before = treeCpuSeconds(Deno.pid, ticks);
      const { qps, completed } = await dnsperf(port, queryFile);
      const cpu = treeCpuSeconds(Deno.pid, ticks) - before;
      const label = shape === "loops" ? `${loops} loops` : shape;
      print(
        `${label.padEnd(12)} ${qps.toFixed(0).padStart(7)}   ${
          ((cpu * 1e6) / completed).toFixed(1).padStart(6)
        }`,
      );
    } finally {
      worker.terminate();
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
