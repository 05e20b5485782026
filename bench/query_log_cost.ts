/**
 * What the query log adds to a listener worker's pipeline, per query:
 * memo hits over a zone of 10,000 names asked in turn (as dnsperf asks
 * them), with the query log on and off, each in a process of its own (one
 * JIT state per variant), three times each; prints the best µs per query
 * of each and their difference. A single name asked again and again (the
 * memo-hit pair in query_handler_bench.ts) hides the cost of finding a
 * fresh name among many; and `deno bench` swung ±50 % on this loop here.
 *
 *   deno run -A bench/query_log_cost.ts
 */
import { createDataPlane } from "../src/stages/data_plane.ts";
import { print } from "./querylog/print.ts";
import { createLogger } from "../src/log/logger.ts";
import { snapshotOf } from "../src/testing/fixtures.ts";
import { zoneFromText } from "../src/testing/zone_text.ts";
import { encodeQuery } from "../src/testing/query_bytes.ts";

const NAMES = 10_000;
const QUERIES = 2_000_000;
/** Events a worker collects between posts at ~80k q/s (250 ms). */
const DRAIN_EVERY = 20_000;

/** Best µs per query over a few rounds of QUERIES. */
function measure(queryLog: boolean): number {
  const zone = zoneFromText("many.test.", [
    "many.test. 300 IN SOA ns1.many.test. hostmaster.many.test. 1 3600 900 1209600 300",
    "many.test. 300 IN NS ns1.many.test.",
    ...Array.from(
      { length: NAMES },
      (_, i) => `h${i}.many.test. 300 IN A 192.0.${i >> 8}.${i & 255}`,
    ),
  ]);
  const queries = Array.from(
    { length: NAMES },
    (_, i) => encodeQuery(`h${i}.many.test. A`, { edns: {} }),
  );
  const client = {
    address: "127.0.0.1",
    port: 5300,
    transport: "udp" as const,
  };
  const plane = createDataPlane({
    logger: createLogger({ level: "error" }),
    queryLog,
  });
  const { handler } = plane;
  handler.setSnapshot(snapshotOf([zone], [], 1));
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const began = performance.now();
    for (let i = 0; i < QUERIES; i++) {
      handler.handle(queries[i % NAMES]!, client); // memo hits: synchronous
      if (i % DRAIN_EVERY === DRAIN_EVERY - 1) plane.events?.drain();
    }
    best = Math.min(best, (performance.now() - began) * 1000 / QUERIES);
  }
  return best;
}

async function runVariant(variant: "on" | "off"): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", import.meta.filename!, "--variant", variant],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

const at = Deno.args.indexOf("--variant");
if (at >= 0) {
  print(measure(Deno.args[at + 1] === "on").toFixed(3));
} else {
  const best = { on: Infinity, off: Infinity };
  for (let i = 0; i < 3; i++) {
    for (const variant of ["on", "off"] as const) {
      best[variant] = Math.min(best[variant], await runVariant(variant));
    }
  }
  print(
    `memo hits over ${NAMES} names: query log on ${best.on.toFixed(2)} µs, ` +
      `off ${best.off.toFixed(2)} µs per query; the log adds ${
        (best.on - best.off).toFixed(2)
      } µs`,
  );
}
