/**
 * What dnsdist in front costs: dnsperf over UDP against kudurru alone, then
 * against dnsdist (started by the edge supervisor, src/edge/) passing the
 * same queries to that kudurru with a PROXYv2 header and the shared
 * secret. Same zone and queries as bench/dnsperf (kudurru authoritative for
 * bench.test.), one kudurru, its PROXYv2 trust on for both runs.
 *
 *   deno run -A --unstable-net bench/edge/run.ts [--duration 10] [--clients 4] [--rounds 1]
 *
 * Prints q/s and CPU µs per query of kudurru's process tree and of dnsdist,
 * and the ratio of the two setups. dnsdist's packet cache is off (the edge
 * renders none): every query reaches kudurru, so the ratio is the cost of
 * the hop, not a cache's gain. `--rounds N` alternates the order.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  BENCH_ZONE,
  benchQueryFile,
  benchRecordSets,
  benchZone,
} from "../dnsperf/bench_zone.ts";
import { clockTicks, treeCpuSeconds } from "../dnsperf/cpu_time.ts";
import { settle } from "../dnsperf/settle.ts";
import { runDnsperf } from "../resolver/dnsperf_pass.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { startTestEdge } from "../../src/edge/test_kit.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
    rounds: { type: "string", default: "1" },
  },
});
const seconds = Number(values.duration);
const clients = Number(values.clients);
const rounds = Number(values.rounds);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

const dir = await Deno.makeTempDir({ prefix: "kudurru-edge-bench-" });
try {
  const queryFile = join(dir, "queries.txt");
  await Deno.writeTextFile(queryFile, benchQueryFile());
  const secretFile = join(dir, "secret");
  const secret = crypto.getRandomValues(new Uint8Array(48));
  await Deno.writeFile(secretFile, secret);
  await using kudurru = await startKudurru({
    objects: [benchZone(), ...benchRecordSets()],
    readyZone: BENCH_ZONE,
    upstreamPort: freePort(),
    listeners: {
      proxyProtocolFrom: ["127.0.0.1/32"],
      proxyProtocolSecretFile: secretFile,
    },
  });
  const edge = await startTestEdge({
    backends: [`127.0.0.1:${kudurru.port}`],
    secret,
  });
  try {
    const ticks = await clockTicks();
    // Up once dnsdist's health check found kudurru.
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${edge.probesUrl}/healthz/ready`);
      await res.body?.cancel();
      if (res.ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await settle(kudurru.pid, ticks);
    const dnsdistPid = edge.supervisor.pid!;
    const run = async (label: string, port: number) => {
      const k0 = treeCpuSeconds(kudurru.pid, ticks);
      const d0 = treeCpuSeconds(dnsdistPid, ticks);
      const result = await runDnsperf({
        port,
        queryFile,
        clients,
        seconds,
        killAfterMs: (seconds + 30) * 1000,
      });
      const per = (s: number) => (s * 1e6 / result.completed).toFixed(1);
      return {
        label,
        qps: result.qps,
        line: `${label.padEnd(18)} ${
          Math.round(result.qps).toString().padStart(8)
        } q/s  kudurru ${
          per(treeCpuSeconds(kudurru.pid, ticks) - k0)
        } µs/query  dnsdist ${
          per(treeCpuSeconds(dnsdistPid, ticks) - d0)
        } µs/query  lost ${result.lost}`,
      };
    };
    // Warm-up, unmeasured: JIT, the answer memo, dnsdist's first queries.
    await runDnsperf({
      port: edge.dnsPort,
      queryFile,
      clients,
      seconds: 2,
      killAfterMs: 40_000,
    });
    print(
      `dnsperf UDP, ${clients} clients, ${seconds} s per run, ${BENCH_ZONE} (bench/dnsperf's zone and queries)`,
    );
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0
        ? [["kudurru alone", kudurru.port], ["dnsdist → kudurru", edge.dnsPort]]
        : [["dnsdist → kudurru", edge.dnsPort], [
          "kudurru alone",
          kudurru.port,
        ]];
      const results = [];
      for (const [label, port] of order as [string, number][]) {
        const r = await run(label, port);
        print(r.line);
        results.push(r);
      }
      const alone = results.find((r) => r.label === "kudurru alone")!;
      const edged = results.find((r) => r.label !== "kudurru alone")!;
      ratios.push(edged.qps / alone.qps);
      print(
        `round ${round + 1}: dnsdist → kudurru / kudurru alone = ${
          (edged.qps / alone.qps).toFixed(2)
        }`,
      );
    }
    ratios.sort((a, b) => a - b);
    print(`median ratio: ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)}`);
  } finally {
    await edge.stop();
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
