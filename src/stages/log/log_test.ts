import assert from "node:assert/strict";
import { createQueryHandler } from "../../pipeline/query_handler.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import type { Stage } from "../../pipeline/stage.ts";
import { createStageCounters } from "../../pipeline/stage_counters.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { encodeQuery } from "../../testing/query_bytes.ts";
import { memoryLogger } from "../../log/logger.ts";
import { createLogStage } from "./log.ts";

Deno.test("log counts the query and the answer the rest of the chain gave", async () => {
  const counters = createStageCounters();
  const answer: Response = {
    message: { id: 1, opcode: 0, rcode: 3 },
    status: "authoritative",
    stage: "authoritative",
  };
  const res = await createLogStage(counters).serve(
    requestFor("nope.example.org. A", { transport: "tcp" }),
    () => answer,
  );
  assert.equal(res, answer);
  assert.deepEqual(counters.drain(), {
    queries: { tcp: 1 },
    responsesByRcode: { NXDOMAIN: 1 },
    responsesByStatus: { authoritative: 1 },
    stageErrors: {},
    encodeErrors: 0,
  });
});

Deno.test("log counts an answer the rest of the chain gave asynchronously", async () => {
  const counters = createStageCounters();
  const answer: Response = {
    message: { id: 1, opcode: 0, rcode: 0 },
    status: "authoritative",
    stage: "authoritative",
  };
  const res = createLogStage(counters).serve(
    requestFor("www.example.org. A"),
    () => Promise.resolve(answer),
  );
  assert.ok(res instanceof Promise);
  assert.equal(await res, answer);
  assert.deepEqual(counters.drain().responsesByRcode, { NOERROR: 1 });
});

Deno.test("log answers synchronously when the rest of the chain does", () => {
  const answer: Response = { drop: true, status: "dropped", stage: "ingress" };
  const res = createLogStage(createStageCounters()).serve(
    requestFor("www.example.org. A"),
    () => answer,
  );
  assert.equal(res, answer);
});

const client = { address: "192.0.2.1", port: 5300, transport: "udp" as const };

/** An authoritative stage that takes `ms` of CPU before answering REFUSED. */
function busyStage(ms: number): Stage {
  return {
    name: "authoritative",
    serve(req: Request): Response {
      const until = performance.now() + ms;
      while (performance.now() < until) { /* busy */ }
      return {
        message: { id: req.query.id, opcode: 0, rcode: 5 },
        status: "refused",
        stage: "authoritative",
      };
    },
  };
}

Deno.test("the handler hands the log stage's timing of the chain to onAnswered", () => {
  const seen: { elapsed: number; duration: number }[] = [];
  const counters = createStageCounters();
  const handler = createQueryHandler({
    logger: memoryLogger(),
    stages: [createLogStage(counters), busyStage(5)],
    counters,
    onAnswered: (req, _res, _bytes, durationMs) =>
      seen.push({ elapsed: req.elapsedMs, duration: durationMs }),
  });
  assert.ok(handler.handle(encodeQuery("www.example.org. A"), client));
  assert.equal(seen.length, 1);
  assert.ok(seen[0]!.elapsed >= 5, `the chain took ${seen[0]!.elapsed} ms`);
  assert.equal(seen[0]!.duration, seen[0]!.elapsed, "one timing, not two");
});

Deno.test("without a log stage the handler times the query itself", () => {
  const durations: number[] = [];
  const handler = createQueryHandler({
    logger: memoryLogger(),
    stages: [busyStage(5)],
    onAnswered: (req, _res, _bytes, durationMs) => {
      assert.equal(req.elapsedMs, -1);
      durations.push(durationMs);
    },
  });
  assert.ok(handler.handle(encodeQuery("www.example.org. A"), client));
  assert.equal(durations.length, 1);
  assert.ok(durations[0]! >= 5 && durations[0]! < 5000);
});
