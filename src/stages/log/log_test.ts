import assert from "node:assert/strict";
import { createStageCounters, type Response } from "../../pipeline/mod.ts";
import { requestFor } from "../../pipeline/testing/mod.ts";
import { createLogStage } from "./mod.ts";

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
