import assert from "node:assert/strict";
import { createStageCounters } from "./stage_counters.ts";

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
