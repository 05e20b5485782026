import assert from "node:assert/strict";
import {
  cacheSchema,
  ratelimitSchema,
  upstreamsSchema,
} from "../../config/schema_resolver.ts";
import type { Transport } from "../../pipeline/handler.ts";
import { buildRequest } from "../../pipeline/request_builder.ts";
import type { Response } from "../../pipeline/response.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { snapshotOf } from "../../testing/fixtures.ts";
import { encodeQuery } from "../../testing/query_bytes.ts";
import { createIngressStage } from "./ingress.ts";

function snapshotLimiting(ratelimit: Record<string, unknown>): Snapshot {
  return {
    ...snapshotOf([]),
    settings: {
      upstreams: upstreamsSchema.parse({}),
      cache: cacheSchema.parse({}),
      ratelimit: ratelimitSchema.parse(ratelimit),
    },
  };
}

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

function query(snapshot: Snapshot, transport: Transport = "udp") {
  return buildRequest(encodeQuery("www.example.org. A", { edns: {} }), {
    client: { address: "198.51.100.1", port: 5300, transport },
    snapshot,
    node: { name: "node-a", version: "1.2.3" },
    received: 0,
  });
}

const twoPerMinute = { ipv4: { "32": 2 }, slip: 50 };

Deno.test("ingress rate-limits UDP: drops, then answers TC=1, unlogged", () => {
  const stage = createIngressStage({ rateLimit: { now: () => 0 } });
  const snapshot = snapshotLimiting(twoPerMinute);
  const results = Array.from({ length: 4 }, () => {
    const req = query(snapshot);
    return { req, res: stage.serve(req, () => passed) as Response };
  });
  assert.deepEqual(results.map((r) => r.res.status), [
    "forwarded",
    "forwarded",
    "rate_limited",
    "rate_limited",
  ]);
  assert.equal(results[2]!.res.drop, true);
  assert.equal(results[2]!.res.unlogged, true);
  const slipped = decodeResponse(results[3]!.req, results[3]!.res)!;
  assert.equal(slipped.tc, true);
  assert.deepEqual(slipped.answer, []);
  assert.equal(results[3]!.res.unlogged, true);
  assert.deepEqual(stage.drainRateLimitCounters(), {
    limited: 2,
    slipped: 1,
    dropped: 1,
    evicted: 0,
  });
});

Deno.test("ingress does not rate-limit when ratelimit is disabled", () => {
  const stage = createIngressStage({ rateLimit: { now: () => 0 } });
  const snapshot = snapshotLimiting({ ...twoPerMinute, enabled: false });
  const statuses = Array.from(
    { length: 4 },
    () => (stage.serve(query(snapshot), () => passed) as Response).status,
  );
  assert.deepEqual(statuses, Array(4).fill("forwarded"));
});

Deno.test("ingress does not rate-limit TCP", () => {
  const stage = createIngressStage({ rateLimit: { now: () => 0 } });
  const snapshot = snapshotLimiting(twoPerMinute);
  const statuses = Array.from(
    { length: 4 },
    () =>
      (stage.serve(query(snapshot, "tcp"), () => passed) as Response).status,
  );
  assert.deepEqual(statuses, Array(4).fill("forwarded"));
});

Deno.test("ingress keeps its buckets across snapshots with equal settings", () => {
  const stage = createIngressStage({ rateLimit: { now: () => 0 } });
  const first = snapshotLimiting(twoPerMinute);
  stage.serve(query(first), () => passed);
  stage.serve(query(first), () => passed);
  const clone = structuredClone(first);
  const res = stage.serve(query(clone), () => passed) as Response;
  assert.equal(res.status, "rate_limited");
});

Deno.test("ingress starts new buckets when the ratelimit settings change", () => {
  const stage = createIngressStage({ rateLimit: { now: () => 0 } });
  const first = snapshotLimiting({ ...twoPerMinute, slip: 0 });
  for (let i = 0; i < 3; i++) stage.serve(query(first), () => passed);
  const changed = snapshotLimiting({ ...twoPerMinute, slip: 100 });
  const res = stage.serve(query(changed), () => passed) as Response;
  assert.equal(res.status, "forwarded");
  assert.equal(stage.drainRateLimitCounters().dropped, 1);
});
