/**
 * The pipeline without sockets: one authoritative query through
 * createStandardQueryHandler, as a memo hit (the steady state) and as a miss
 * (a fresh snapshot each time). Separates pipeline cost from socket cost in
 * the dnsperf figures of docs/performance.md.
 *
 *   deno bench bench/query_handler_bench.ts
 */
import { createStandardQueryHandler } from "../src/stages/mod.ts";
import { createLogger } from "../src/log/logger.ts";
import {
  encodeQuery,
  snapshotOf,
  zoneFromText,
} from "../src/pipeline/testing/mod.ts";

const zone = zoneFromText("example.org.", [
  "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 900 1209600 300",
  "example.org. 300 IN NS ns1.example.org.",
  "ns1.example.org. 300 IN A 192.0.2.53",
  "www.example.org. 300 IN A 192.0.2.1",
]);
const client = { address: "127.0.0.1", port: 5300, transport: "udp" as const };
const query = encodeQuery("www.example.org. A", { edns: {} });
const handler = createStandardQueryHandler({
  logger: createLogger({ level: "error" }),
});
let version = 1;
handler.setSnapshot(snapshotOf([zone], [], version));

/** handle() answers memo hits synchronously; wait only for a promise, as the UDP listener does. */
function settle(reply: unknown): Promise<void> | undefined {
  return reply instanceof Promise ? reply.then(() => {}) : undefined;
}

Deno.bench("query handler: authoritative A, memo hit", () => {
  return settle(handler.handle(query, client));
});

Deno.bench(
  "query handler: authoritative A, memo miss (new snapshot each time)",
  () => {
    handler.setSnapshot(snapshotOf([zone], [], ++version));
    return settle(handler.handle(query, client));
  },
);
