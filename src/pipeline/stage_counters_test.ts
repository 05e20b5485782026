import assert from "node:assert/strict";
import {
  createStageCounters,
  DURATION_BUCKETS_US,
  MAX_LISTS_PER_BATCH,
  OTHER_LIST,
  qtypeLabel,
} from "./stage_counters.ts";
import { MAX_LIST_LABELS } from "../metrics/query_metrics.ts";

Deno.test("stage counters count queries, rcodes and statuses", () => {
  const counters = createStageCounters();
  counters.countQuery("udp");
  counters.countQuery("udp");
  counters.countQuery("tcp");
  counters.countResponse({
    message: { id: 1, opcode: 0, rcode: 3 },
    status: "authoritative",
    stage: "authoritative",
  });
  counters.countResponse({
    message: { id: 1, opcode: 0, rcode: 16 },
    status: "badvers",
    stage: "ingress",
  });
  counters.countResponse({
    message: { id: 1, opcode: 0, rcode: 9 },
    status: "refused",
    stage: "chain",
  });
  counters.countResponse({ drop: true, status: "dropped", stage: "ingress" });
  assert.deepEqual(counters.drain(), {
    queries: { udp: 2, tcp: 1 },
    responsesByRcode: { NXDOMAIN: 1, BADVERS: 1, OTHER: 1 },
    responsesByStatus: { authoritative: 1, badvers: 1, refused: 1, dropped: 1 },
    stageErrors: {},
    encodeErrors: 0,
  });
});

Deno.test("stage counters read the rcode of encoded answers from the header", () => {
  const counters = createStageCounters();
  const wire = new Uint8Array(12);
  wire[3] = 0x85; // RA + REFUSED
  counters.countResponse({
    wire,
    status: "authoritative",
    stage: "authoritative",
  });
  assert.deepEqual(counters.drain().responsesByRcode, { REFUSED: 1 });
});

Deno.test("stage counters start from zero after a drain", () => {
  const counters = createStageCounters();
  counters.countQuery("udp");
  counters.countStageError("local");
  counters.drain();
  assert.deepEqual(counters.drain(), {
    queries: {},
    responsesByRcode: {},
    responsesByStatus: {},
    stageErrors: {},
    encodeErrors: 0,
  });
});

Deno.test("stage counters count queries by transport and qtype label", () => {
  const counters = createStageCounters();
  const table: [number | undefined, string][] = [
    [1, "A"],
    [28, "AAAA"],
    [65, "HTTPS"],
    [257, "CAA"],
    [252, "AXFR"],
    [99, "OTHER"],
    [undefined, "NONE"],
  ];
  for (const [type, label] of table) {
    assert.equal(qtypeLabel(type), label);
    counters.countQuery("udp", type);
  }
  counters.countQuery("tcp", 1);
  assert.deepEqual(counters.drainDetail().queriesByType, {
    udp: { A: 1, AAAA: 1, HTTPS: 1, CAA: 1, AXFR: 1, OTHER: 1, NONE: 1 },
    tcp: { A: 1 },
  });
  // The summary keeps its shape: queries by transport only.
  assert.deepEqual(counters.drain().queries, { udp: 7, tcp: 1 });
});

Deno.test("stage counters split answers by status and rcode, and drops by status", () => {
  const counters = createStageCounters();
  const msg = (rcode: number) => ({ id: 1, opcode: 0, rcode });
  counters.countResponse({
    message: msg(0),
    status: "forwarded",
    stage: "upstream",
  });
  counters.countResponse({
    message: msg(0),
    status: "forwarded",
    stage: "upstream",
  });
  counters.countResponse({
    message: msg(3),
    status: "forwarded",
    stage: "upstream",
  });
  counters.countResponse({
    message: msg(2),
    status: "servfail",
    stage: "chain",
  });
  counters.countResponse({ drop: true, status: "dropped", stage: "ingress" });
  const detail = counters.drainDetail();
  assert.deepEqual(detail.answers, {
    forwarded: { NOERROR: 2, NXDOMAIN: 1 },
    servfail: { SERVFAIL: 1 },
  });
  assert.deepEqual(detail.drops, { dropped: 1 });
});

Deno.test("stage counters put durations in their buckets and sum them", () => {
  const counters = createStageCounters();
  const res = { drop: true, status: "dropped", stage: "ingress" } as const;
  // bound 50 µs is inclusive; 6 s is above every bound.
  for (const us of [10, 50, 51, 1_000, 6_000_000]) {
    counters.countResponse(res, us);
  }
  counters.countResponse(res); // not measured: not in the histogram
  counters.countResponse(res, -5); // a clock step: ignored
  counters.countResponse(res, Number.NaN);
  const { durations } = counters.drainDetail();
  assert.equal(durations.counts.length, DURATION_BUCKETS_US.length + 1);
  assert.equal(durations.counts[0], 2);
  assert.equal(durations.counts[1], 1);
  assert.equal(durations.counts[DURATION_BUCKETS_US.indexOf(1_000)], 1);
  assert.equal(durations.counts.at(-1), 1);
  assert.equal(durations.counts.reduce((a, b) => a + b, 0), 5);
  assert.equal(durations.sumUs, 10 + 50 + 51 + 1_000 + 6_000_000);
});

Deno.test("stage counters count blocks by list, capped per batch", () => {
  const counters = createStageCounters();
  const blocked = (list?: string) =>
    counters.countResponse({
      message: { id: 1, opcode: 0, rcode: 3 },
      status: "blocked_list",
      stage: "blocking",
      ...(list !== undefined && { list }),
    });
  blocked("ads/oisd");
  blocked("ads/oisd");
  blocked("__proto__"); // a name, not a property
  blocked(); // no list named: "other"
  assert.deepEqual({ ...counters.drainDetail().blockedByList }, {
    "ads/oisd": 2,
    ["__proto__"]: 1,
    other: 1,
  });
  for (let i = 0; i < MAX_LISTS_PER_BATCH + 50; i++) blocked(`list-${i}`);
  blocked("list-0"); // already counted: keeps its name past the cap
  const capped = counters.drainDetail().blockedByList;
  assert.equal(Object.keys(capped).length, MAX_LISTS_PER_BATCH + 1);
  assert.equal(capped[OTHER_LIST], 50);
  assert.equal(capped["list-0"], 2);
  // The cap starts again with the next batch.
  blocked("list-999");
  assert.deepEqual({ ...counters.drainDetail().blockedByList }, {
    "list-999": 1,
  });
});

Deno.test("stage counters count rate-limited queries as drops or TC=1 answers", () => {
  const counters = createStageCounters();
  counters.countResponse({
    drop: true,
    status: "rate_limited",
    stage: "ingress",
  });
  counters.countResponse({
    message: { id: 1, opcode: 0, rcode: 0, tc: true },
    status: "rate_limited",
    stage: "ingress",
  });
  counters.countResponse({
    drop: true,
    status: "rate_limited",
    stage: "ingress",
  });
  const detail = counters.drainDetail();
  assert.deepEqual(detail.rateLimited, { dropped: 2, truncated: 1 });
  assert.deepEqual(detail.drops, { rate_limited: 2 });
  assert.deepEqual(detail.answers, { rate_limited: { NOERROR: 1 } });
});

Deno.test("a batch keeps as many list names as the blocked-by-list metric", () => {
  assert.ok(
    MAX_LISTS_PER_BATCH >= MAX_LIST_LABELS,
    `${MAX_LISTS_PER_BATCH} < ${MAX_LIST_LABELS}`,
  );
  // 300 lists blocking in one second: every one keeps its own count.
  const counters = createStageCounters();
  for (let i = 0; i < 300; i++) {
    counters.countResponse({
      message: { id: 1, opcode: 0, rcode: 3 },
      status: "blocked_list",
      stage: "blocking",
      list: `list-${i}`,
    });
  }
  const counts = counters.drainDetail().blockedByList;
  assert.equal(Object.keys(counts).length, 300);
  assert.equal(counts[OTHER_LIST], undefined);
});
