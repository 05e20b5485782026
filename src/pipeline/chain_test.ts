import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { buildChain } from "./chain.ts";
import type { Response } from "./response.ts";
import type { Stage, StageName } from "./stage.ts";
import { createStageCounters } from "./stage_counters.ts";
import { decodeResponse } from "../testing/decode_response.ts";
import { requestFor } from "../testing/fixtures.ts";

/** A stage that records its name in `trace` and passes on. */
function tracer(name: StageName, trace: string[]): Stage {
  return {
    name,
    serve(req, next) {
      trace.push(name);
      return next(req);
    },
  };
}

function thrower(name: StageName): Stage {
  return {
    name,
    serve() {
      throw new Error("boom");
    },
  };
}

Deno.test("chain runs stages in the fixed order with log outermost", async () => {
  const trace: string[] = [];
  const names: StageName[] = [
    "upstream",
    "local",
    "log",
    "ingress",
    "authoritative",
    "identify",
  ];
  const chain = buildChain(names.map((n) => tracer(n, trace)), {
    logger: memoryLogger(),
  });
  await chain(requestFor("example.org. A"));
  assert.deepEqual(trace, [
    "log",
    "ingress",
    "identify",
    "local",
    "authoritative",
    "upstream",
  ]);
});

Deno.test("chain answers REFUSED at its end", async () => {
  const chain = buildChain([], { logger: memoryLogger() });
  const req = requestFor("example.org. A");
  const res = await chain(req);
  assert.equal(res.status, "refused");
  assert.equal(decodeResponse(req, res)?.rcode, "REFUSED");
});

Deno.test("chain answers SERVFAIL for a stage that throws", async () => {
  const chain = buildChain([thrower("local")], { logger: memoryLogger() });
  const req = requestFor("example.org. A");
  const res = await chain(req);
  assert.equal(res.status, "servfail");
  assert.equal(res.stage, "local");
  assert.equal(decodeResponse(req, res)?.rcode, "SERVFAIL");
});

Deno.test("chain logs a throwing stage once with stage, qname and qtype", async () => {
  const logger = memoryLogger();
  const outer: Response[] = [];
  const watcher: Stage = {
    name: "ingress",
    async serve(req, next) {
      const res = await next(req);
      outer.push(res);
      return res;
    },
  };
  const chain = buildChain([watcher, thrower("authoritative")], { logger });
  await chain(requestFor("Example.org. AAAA"));
  assert.equal(logger.lines.length, 1);
  const line = JSON.parse(logger.lines[0]!);
  assert.equal(line.stage, "authoritative");
  assert.equal(line.qname, "Example.org.");
  assert.equal(line.qtype, 28);
  assert.equal(outer[0]?.status, "servfail");
});

Deno.test("chain counts a throwing stage", async () => {
  const counters = createStageCounters();
  const chain = buildChain([thrower("control")], {
    logger: memoryLogger(),
    counters,
  });
  await chain(requestFor("example.org. A"));
  assert.deepEqual(counters.drain().stageErrors, { control: 1 });
});

Deno.test("chain refuses two stages with one name", () => {
  assert.throws(
    () =>
      buildChain([tracer("local", []), tracer("local", [])], {
        logger: memoryLogger(),
      }),
    /stage "local" given twice/,
  );
});

Deno.test("chain answers synchronously when every stage does", () => {
  const trace: string[] = [];
  const chain = buildChain([tracer("ingress", trace), tracer("local", trace)], {
    logger: memoryLogger(),
  });
  const res = chain(requestFor("example.org. A"));
  assert.ok(!(res instanceof Promise));
  assert.equal(res.status, "refused");
});

Deno.test("chain answers SERVFAIL for a stage whose promise rejects", async () => {
  const rejecter: Stage = {
    name: "upstream",
    serve: () => Promise.reject(new Error("timeout")),
  };
  const counters = createStageCounters();
  const chain = buildChain([tracer("ingress", []), rejecter], {
    logger: memoryLogger(),
    counters,
  });
  const res = chain(requestFor("example.org. A"));
  assert.ok(res instanceof Promise);
  assert.equal((await res).status, "servfail");
  assert.deepEqual(counters.drain().stageErrors, { upstream: 1 });
});
