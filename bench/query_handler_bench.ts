/**
 * The pipeline without sockets: one authoritative query through
 * the standard data plane (createDataPlane), as a memo hit (the steady state) and as a miss
 * (a fresh snapshot each time), and one forwarded query answered from the
 * cache with the configuration's default settings (what bench/resolver
 * loads kudurru with). Separates pipeline cost from socket cost in the
 * dnsperf figures of docs/performance.md.
 *
 *   deno bench bench/query_handler_bench.ts
 */
import { loadConfig } from "../src/config/load.ts";
import { RCODE } from "../src/dns/wire/constants.ts";
import { encodeResponse } from "../src/dns/wire/response.ts";
import { createQueryHandler } from "../src/pipeline/query_handler.ts";
import type { Snapshot } from "../src/pipeline/snapshot.ts";
import type { Stage } from "../src/pipeline/stage.ts";
import { createStageCounters } from "../src/pipeline/stage_counters.ts";
import { createDataPlane, standardStages } from "../src/stages/data_plane.ts";
import { createLogger } from "../src/log/logger.ts";
import { snapshotOf } from "../src/testing/fixtures.ts";
import { zoneFromText } from "../src/testing/zone_text.ts";
import { encodeQuery } from "../src/testing/query_bytes.ts";

const zone = zoneFromText("example.org.", [
  "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 900 1209600 300",
  "example.org. 300 IN NS ns1.example.org.",
  "ns1.example.org. 300 IN A 192.0.2.53",
  "www.example.org. 300 IN A 192.0.2.1",
]);
const client = { address: "127.0.0.1", port: 5300, transport: "udp" as const };
const query = encodeQuery("www.example.org. A", { edns: {} });
const plane = createDataPlane({ logger: createLogger({ level: "error" }) });
const { handler } = plane;
let version = 1;
handler.setSnapshot(snapshotOf([zone], [], version));

/** handle() answers memo hits synchronously; wait only for a promise, as the UDP listener does. */
function settle(reply: unknown): Promise<void> | undefined {
  return reply instanceof Promise ? reply.then(() => {}) : undefined;
}

// The buffer is drained as a worker drains it (every 250 ms: ~5,000
// queries at 20k q/s); undrained, it would fill and drop for nothing.
let sinceDrain = 0;
function drained<T>(reply: T): T {
  if (++sinceDrain === 5000) {
    sinceDrain = 0;
    plane.events?.drain();
  }
  return reply;
}

Deno.bench("query handler: authoritative A, memo hit", {
  group: "query log",
}, () => {
  return settle(drained(handler.handle(query, client)));
});

const unlogged = createDataPlane({
  logger: createLogger({ level: "error" }),
  queryLog: false,
}).handler;
unlogged.setSnapshot(snapshotOf([zone], [], version));
Deno.bench("query handler: authoritative A, memo hit, query log off", {
  group: "query log",
  baseline: true,
}, () => {
  return settle(unlogged.handle(query, client));
});

Deno.bench(
  "query handler: authoritative A, memo miss (new snapshot each time)",
  () => {
    handler.setSnapshot(snapshotOf([zone], [], ++version));
    return settle(handler.handle(query, client));
  },
);

// A cache hit: every standard stage but the upstream, which is scripted to
// answer at once (one A record, TTL 3600) so the first query fills the cache.
const { config } = loadConfig({
  env: {},
  isRoot: false,
  hostname: "bench",
  readFile: () => {
    throw new Deno.errors.NotFound("no configuration file");
  },
});
const scriptedUpstream: Stage = {
  name: "upstream",
  serve: (req) => ({
    wire: encodeResponse({
      id: req.query.id,
      opcode: req.query.opcode,
      rcode: RCODE.NOERROR,
      rd: req.query.rd,
      ra: true,
      aa: false,
      tc: false,
      question: req.query.question!,
      answer: [{
        name: req.query.question!.name,
        type: 1,
        ttl: 3600,
        rdata: [{ type: "A", address: "198.18.0.1" }],
      }],
      authority: [],
      additional: [],
    }, 65535),
    status: "forwarded",
    stage: "upstream",
  }),
};
const logger = createLogger({ level: "error" });
const counters = createStageCounters();
const resolving = createQueryHandler({
  logger,
  counters,
  stages: [
    ...standardStages({ counters, logger }).filter((s) =>
      s.name !== "upstream"
    ),
    scriptedUpstream,
  ],
});
const withSettings: Snapshot = {
  ...snapshotOf([zoneFromText("local.test.", [
    "local.test. 300 IN SOA ns1.local.test. hostmaster.local.test. 1 3600 900 1209600 300",
    "local.test. 300 IN NS ns1.local.test.",
  ])]),
  settings: {
    upstreams: config.upstreams,
    cache: config.cache,
    ratelimit: config.ratelimit,
  },
};
resolving.setSnapshot(withSettings);
// dnsperf's queries: RD set, EDNS with DO unset, from loopback.
const forwardedQuery = encodeQuery("h1.bench.test. A", { rd: true, edns: {} });
const fill = resolving.handle(forwardedQuery, client);
if (fill instanceof Promise) await fill;

Deno.bench("query handler: forwarded A, cache hit (default settings)", () => {
  return settle(resolving.handle(forwardedQuery, client));
});
