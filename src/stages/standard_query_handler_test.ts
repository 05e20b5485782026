import assert from "node:assert/strict";
import { EDNS_OPTION } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import type { ClientInfo } from "../pipeline/handler.ts";
import { createQueryHandler } from "../pipeline/query_handler.ts";
import type { Stage } from "../pipeline/stage.ts";
import { createStageCounters } from "../pipeline/stage_counters.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import {
  decodeAnswer,
  encodeQuery,
  type QueryOptions,
} from "../testing/query_bytes.ts";
import type { AuthoritativeStage } from "./authoritative/authoritative.ts";
import { createDataPlane, standardStages } from "./data_plane.ts";
import {
  cacheSchema,
  ratelimitSchema,
  upstreamsSchema,
} from "../config/schema_resolver.ts";

const UDP: ClientInfo = { address: "192.0.2.7", port: 40000, transport: "udp" };
const TCP: ClientInfo = { ...UDP, transport: "tcp" };

const SOA =
  "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 7 7200 3600 1209600 300";
const bigTxt = Array.from(
  { length: 20 },
  (_, i) => `big.example.org. 300 IN TXT "${"x".repeat(60)}${i}"`,
);

function exampleZone(address = "192.0.2.1") {
  return zoneFromText("example.org.", [
    SOA,
    "example.org. 3600 IN NS ns1.example.org.",
    "ns1.example.org. 3600 IN A 192.0.2.53",
    `www.example.org. 300 IN A ${address}`,
    ...bigTxt,
  ]);
}

function setup(opts: { snapshot?: boolean } = {}) {
  const logger = memoryLogger();
  const plane = createDataPlane({
    logger,
    nodeName: "node-a",
    version: "1.2.3",
  });
  const { handler } = plane;
  if (opts.snapshot !== false) handler.setSnapshot(snapshotOf([exampleZone()]));
  return { plane, handler, logger };
}

async function ask(q: string, opts: QueryOptions = {}, client = UDP) {
  const { handler } = setup();
  const bytes = await handler.handle(encodeQuery(q, opts), client);
  assert.ok(bytes !== null);
  return { bytes, decoded: decodeAnswer(bytes) };
}

Deno.test("query handler answers rcodes end to end", async (t) => {
  const cases: { q: string; opts?: QueryOptions; rcode: string }[] = [
    {
      q: "www.example.org. A",
      opts: { edns: { version: 1 } },
      rcode: "BADVERS",
    },
    // NOTIFY for a zone that is not a secondary here (RFC 1996).
    { q: "example.org. SOA", opts: { opcode: 4 }, rcode: "REFUSED" },
    { q: "example.org. SOA", opts: { opcode: 5 }, rcode: "REFUSED" },
    { q: "www.example.net. A", rcode: "REFUSED" },
    { q: "nope.example.org. A", rcode: "NXDOMAIN" },
    { q: "localhost. A", rcode: "NOERROR" },
    { q: "4.3.2.10.in-addr.arpa. PTR", rcode: "NXDOMAIN" },
  ];
  for (const c of cases) {
    await t.step(`${c.q} ${JSON.stringify(c.opts ?? {})}`, async () => {
      const { decoded } = await ask(c.q, c.opts);
      assert.equal(decoded.rcode, c.rcode);
    });
  }
});

Deno.test("query handler answers FORMERR to a header followed by garbage", async () => {
  const { handler } = setup();
  const bytes = new Uint8Array([
    0x12,
    0x34,
    1,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    9,
    1,
    2,
  ]);
  const answer = await handler.handle(bytes, UDP);
  assert.equal(decodeAnswer(answer!).rcode, "FORMERR");
  assert.equal(decodeAnswer(answer!).id, 0x1234);
});

Deno.test("query handler sends nothing for a message without a header", async () => {
  const { handler } = setup();
  assert.equal(await handler.handle(new Uint8Array([1, 2, 3]), UDP), null);
});

Deno.test("query handler answers BADVERS with an OPT record", async () => {
  const { decoded } = await ask("www.example.org. A", { edns: { version: 1 } });
  assert.equal(decoded.opt?.version, 0);
});

Deno.test("query handler answers authoritatively in the client's case", async () => {
  const { decoded } = await ask("WwW.ExAmple.ORG. A");
  assert.equal(decoded.aa, true);
  assert.deepEqual(decoded.question, ["WwW.ExAmple.ORG. A IN"]);
  assert.deepEqual(decoded.answer.map((r) => r.split(" ").slice(1).join(" ")), [
    "300 IN A 192.0.2.1",
  ]);
});

Deno.test("query handler copies ID, RD and CD and echoes EDNS", async () => {
  const { decoded } = await ask("www.example.org. A", {
    id: 777,
    rd: false,
    cd: true,
    edns: { udpSize: 4096, do: true },
  });
  assert.deepEqual(
    [decoded.id, decoded.qr, decoded.rd, decoded.cd],
    [777, true, false, true],
  );
  assert.deepEqual([decoded.opt?.udpSize, decoded.opt?.do], [1232, true]);
});

Deno.test("query handler sends no OPT record when the query had none", async () => {
  const { decoded } = await ask("www.example.org. A");
  assert.equal(decoded.opt, undefined);
});

Deno.test("query handler answers CHAOS version.bind", async () => {
  const { decoded } = await ask("version.bind. TXT", { qclass: "CH" });
  assert.deepEqual(decoded.answer, ['version.bind. 0 CH TXT "kudurru 1.2.3"']);
});

Deno.test("query handler adds NSID when asked", async () => {
  const { decoded } = await ask("www.example.org. A", {
    edns: { options: [{ code: EDNS_OPTION.NSID, data: new Uint8Array() }] },
  });
  const nsid = decoded.opt?.options.find((o) => o.code === EDNS_OPTION.NSID);
  assert.equal(new TextDecoder().decode(nsid?.data), "node-a");
});

Deno.test("query handler answers the health check", async () => {
  const { decoded } = await ask("health.kudurru.internal. TXT");
  assert.deepEqual(decoded.answer, [
    'health.kudurru.internal. 0 IN TXT "node-a" "1"',
  ]);
});

Deno.test("query handler answers localhost", async () => {
  const { decoded } = await ask("localhost. AAAA");
  assert.deepEqual(decoded.answer, ["localhost. 10800 IN AAAA ::1"]);
});

Deno.test("query handler answers RFC 6303 zones with their SOA", async () => {
  const { decoded } = await ask("1.0.168.192.in-addr.arpa. PTR");
  assert.deepEqual(decoded.authority, [
    "168.192.in-addr.arpa. 10800 IN SOA 168.192.in-addr.arpa. . 0 28800 7200 604800 10800",
  ]);
});

Deno.test("query handler answers SERVFAIL before the first snapshot", async (t) => {
  for (
    const q of [
      "www.example.org. A",
      "nope.example.org. A",
      "4.3.2.10.in-addr.arpa. PTR",
    ]
  ) {
    await t.step(q, async () => {
      const { handler } = setup({ snapshot: false });
      const answer = await handler.handle(encodeQuery(q), UDP);
      assert.equal(decodeAnswer(answer!).rcode, "SERVFAIL");
    });
  }
});

Deno.test("query handler answers SERVFAIL and logs once when a stage throws", async () => {
  const logger = memoryLogger();
  const counters = createStageCounters();
  const broken: Stage = {
    name: "control",
    serve() {
      throw new Error("broken on purpose");
    },
  };
  const stages = standardStages({ counters, logger: memoryLogger() })
    .filter((s) => s.name !== "control");
  const handler = createQueryHandler({
    logger,
    stages: [...stages, broken],
    counters,
  });
  handler.setSnapshot(snapshotOf([exampleZone()]));
  const answer = await handler.handle(encodeQuery("www.example.org. A"), UDP);
  assert.equal(decodeAnswer(answer!).rcode, "SERVFAIL");
  assert.equal(logger.lines.length, 1);
  assert.match(
    logger.lines[0]!,
    /"stage":"control".*"qname":"www.example.org.".*"qtype":1/,
  );
});

Deno.test("query handler truncates over UDP to the client's size", async (t) => {
  const cases = [
    { name: "UDP without EDNS", opts: {}, client: UDP, tc: true, max: 512 },
    {
      name: "UDP with EDNS 4096 gets at most 1232",
      opts: { edns: { udpSize: 4096 } },
      client: UDP,
      tc: true,
      max: 1232,
    },
    { name: "TCP", opts: {}, client: TCP, tc: false, max: 65535 },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { bytes, decoded } = await ask(
        "big.example.org. TXT",
        c.opts,
        c.client,
      );
      assert.equal(decoded.tc, c.tc);
      assert.ok(bytes.length <= c.max);
      if (!c.tc) assert.equal(decoded.answer.length, 20);
    });
  }
});

Deno.test("query handler memo returns the same bytes but the ID, in the client's case", async () => {
  const { handler } = setup();
  const first = await handler.handle(
    encodeQuery("www.example.org. A", { id: 1 }),
    UDP,
  );
  const second = await handler.handle(
    encodeQuery("WWW.example.ORG. A", { id: 2 }),
    UDP,
  );
  const decoded = decodeAnswer(second!);
  assert.equal(decoded.id, 2);
  assert.deepEqual(decoded.question, ["WWW.example.ORG. A IN"]);
  const expected = first!.slice();
  expected[1] = 2;
  expected.set(new TextEncoder().encode("WWW"), 13);
  expected.set(new TextEncoder().encode("ORG"), 25);
  assert.deepEqual(second, expected);
});

Deno.test("query handler memo serves hits from the authoritative stage", async () => {
  const logger = memoryLogger();
  const counters = createStageCounters();
  const stages = standardStages({ counters, logger: memoryLogger() });
  const authoritative = stages.find((s) =>
    s.name === "authoritative"
  ) as AuthoritativeStage;
  const handler = createQueryHandler({ logger, stages, counters });
  handler.setSnapshot(snapshotOf([exampleZone()]));
  await handler.handle(encodeQuery("www.example.org. A", { id: 1 }), UDP);
  await handler.handle(encodeQuery("www.example.org. A", { id: 2 }), UDP);
  const { bytes, ...counts } = authoritative.memoStats();
  assert.deepEqual(counts, { hits: 1, misses: 1, entries: 1 });
  assert.ok(bytes > 0, `bytes ${bytes}`);
});

Deno.test("query handler memo is dropped when the snapshot changes", async () => {
  const { handler } = setup();
  await handler.handle(encodeQuery("www.example.org. A"), UDP);
  handler.setSnapshot(snapshotOf([exampleZone("192.0.2.99")], [], 2));
  const answer = await handler.handle(encodeQuery("www.example.org. A"), UDP);
  assert.deepEqual(decodeAnswer(answer!).answer, [
    "www.example.org. 300 IN A 192.0.2.99",
  ]);
});

Deno.test("query handler counts queries and answers", async () => {
  const { handler } = setup();
  await handler.handle(encodeQuery("www.example.org. A"), UDP);
  await handler.handle(encodeQuery("www.example.net. A"), TCP);
  await handler.handle(encodeQuery("health.kudurru.internal. TXT"), UDP);
  await handler.handle(new Uint8Array([1]), UDP);
  assert.deepEqual(handler.counters.drain(), {
    queries: { udp: 3, tcp: 1 },
    responsesByRcode: { NOERROR: 2, REFUSED: 1 },
    responsesByStatus: { authoritative: 1, refused: 1, health: 1, dropped: 1 },
    stageErrors: {},
    encodeErrors: 0,
  });
});

Deno.test("standard query handler reports rate-limit buckets evicted", async () => {
  const plane = createDataPlane({ logger: memoryLogger() });
  const { handler } = plane;
  handler.setSnapshot({
    ...snapshotOf([exampleZone()]),
    settings: {
      upstreams: upstreamsSchema.parse({}),
      cache: cacheSchema.parse({}),
      ratelimit: ratelimitSchema.parse({ maxBuckets: 4 }),
    },
  });
  // Ten /24s, three levels of buckets each: most of them cannot stay.
  for (let i = 0; i < 10; i++) {
    const client = { ...UDP, address: `198.51.${i}.1` };
    await handler.handle(encodeQuery("www.example.org. A"), client);
  }
  const evicted = plane.drainRateLimitEvictions();
  assert.ok(evicted >= 10, `evicted ${evicted}`);
  assert.equal(plane.drainRateLimitEvictions(), 0, "drained");
});

Deno.test("standard query handler fills the query-event arrays handed back", async () => {
  const { plane, handler } = setup();
  await handler.handle(encodeQuery("www.example.org. A"), UDP);
  const { events } = plane.events!.drain();
  assert.equal(events.count, 1);
  plane.events!.recycle(events.times, events.ints);
  await handler.handle(encodeQuery("www.example.org. A"), UDP);
  const next = plane.events!.drain().events;
  assert.equal(next.count, 1);
  assert.equal(next.times.buffer, events.times.buffer);
  assert.equal(next.ints.buffer, events.ints.buffer);
});
