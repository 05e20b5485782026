/**
 * The audit's hostile upstream (a TSIG passed on, records of other types
 * and names), through the whole stage: what the client gets.
 */
import assert from "node:assert/strict";
import { memoryLogger } from "../../log/logger.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { records } from "../cache/testdata/answers.ts";
import { createUpstreamStage } from "./upstream.ts";
import {
  answered,
  requestFrom,
  scriptedResolver,
  snapshotWith,
  upstreamAnswer,
  upstreamsOf,
} from "./testdata/upstream_fixtures.ts";
import { retype } from "./testdata/scrub_fixtures.ts";

const snapshot = snapshotWith(
  upstreamsOf({ groups: { default: { servers: ["192.0.2.53"] } } }),
);

async function forwarded(question: string, upstream: Uint8Array) {
  const resolver = scriptedResolver(answered(upstream));
  const stage = createUpstreamStage({ resolver, logger: memoryLogger() });
  const req = requestFrom(question, { snapshot, edns: {} });
  const res = await stage.serve(req, () => {
    throw new Error("the upstream stage never calls next");
  });
  assert.equal(res.status, "forwarded");
  return { wire: res.wire!, decoded: decodeResponse(req, res)! };
}

Deno.test("upstream passes no upstream TSIG on: its own OPT is the last record", async () => {
  const upstream = upstreamAnswer("tsig.test. A", {
    answer: records(["tsig.test. 300 IN A 192.0.2.1"]),
    additional: records(["key. 0 IN TXT signature"]),
  });
  retype(1, 250, 255)(upstream); // TSIG, class ANY
  const { wire, decoded } = await forwarded("tsig.test. A", upstream);
  assert.deepEqual(decoded.additional, []);
  assert.equal((wire[10]! << 8) | wire[11]!, 1, "ARCOUNT: the OPT alone");
  assert.equal(wire[wire.length - 11], 0, "the OPT's root owner");
  assert.equal((wire[wire.length - 10]! << 8) | wire[wire.length - 9]!, 41);
});

Deno.test("upstream answers only the type asked for", async (t) => {
  await t.step("an A in an AAAA answer: NODATA, the SOA kept", async () => {
    const { decoded } = await forwarded(
      "wrongtypesoa.test. AAAA",
      upstreamAnswer("wrongtypesoa.test. AAAA", {
        answer: records(["wrongtypesoa.test. 300 IN A 6.6.6.6"]),
        authority: records([
          "test. 300 IN SOA ns.test. admin.test. 1 3600 600 86400 300",
        ]),
      }),
    );
    assert.equal(decoded.rcode, "NOERROR");
    assert.deepEqual(decoded.answer, []);
    assert.equal(decoded.authority.length, 1);
  });
  await t.step("a TXT beside the A asked for", async () => {
    const { decoded } = await forwarded(
      "mixtype.test. A",
      upstreamAnswer("mixtype.test. A", {
        answer: records([
          "mixtype.test. 300 IN A 192.0.2.1",
          "mixtype.test. 300 IN TXT evil",
        ]),
      }),
    );
    assert.deepEqual(decoded.answer, ["mixtype.test. 300 IN A 192.0.2.1"]);
  });
});

Deno.test("upstream leaves out authority and additional records about other zones", async () => {
  const { decoded } = await forwarded(
    "oob.test. A",
    upstreamAnswer("oob.test. A", {
      answer: records(["oob.test. 300 IN A 192.0.2.1"]),
      authority: records(["victim.test. 300 IN NS ns.evil.example."]),
      additional: records([
        "www.victim.test. 300 IN A 6.6.6.6",
        "ns.evil.example. 300 IN A 6.6.6.6",
      ]),
    }),
  );
  assert.deepEqual(decoded.answer, ["oob.test. 300 IN A 192.0.2.1"]);
  assert.deepEqual(decoded.authority, []);
  assert.deepEqual(decoded.additional, []);
});
