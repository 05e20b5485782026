import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/constants.ts";
import { parseQuery } from "../dns/wire/query.ts";
import { buildQuery, ECS_OPTION_CODE, randomQueryId } from "./build_query.ts";

Deno.test("buildQuery writes a recursive query with EDNS and the DO bit", () => {
  const q = parseQuery(buildQuery({
    name: "Example.ORG.",
    type: TYPE.AAAA,
    class: 1,
    dnssecOk: true,
    checkingDisabled: true,
  }, 4242));
  assert.equal(q.id, 4242);
  assert.equal(q.qr, false);
  assert.equal(q.rd, true);
  assert.equal(q.cd, true);
  assert.deepEqual(q.question, {
    name: "Example.ORG.",
    type: TYPE.AAAA,
    class: 1,
  });
  assert.equal(q.edns?.udpSize, 1232);
  assert.equal(q.edns?.dnssecOk, true);
  assert.deepEqual(q.edns?.options, []);
});

Deno.test("buildQuery carries the client subnet option", () => {
  const subnet = new Uint8Array([0, 1, 24, 0, 192, 0, 2]);
  const q = parseQuery(buildQuery({
    name: "example.org.",
    type: TYPE.A,
    class: 1,
    dnssecOk: false,
    checkingDisabled: false,
    clientSubnet: subnet,
  }, 1));
  assert.equal(q.edns?.dnssecOk, false);
  assert.deepEqual(q.edns?.options, [{ code: ECS_OPTION_CODE, data: subnet }]);
});

Deno.test("randomQueryId varies", () => {
  const ids = new Set(Array.from({ length: 20 }, randomQueryId));
  assert.ok(ids.size > 15, `only ${ids.size} distinct IDs in 20`);
});

Deno.test("buildQuery leaves the OPT record out for a server without EDNS", () => {
  const q = parseQuery(buildQuery(
    {
      name: "example.org.",
      type: TYPE.A,
      class: 1,
      dnssecOk: true,
      checkingDisabled: true,
      clientSubnet: new Uint8Array([0, 1, 24, 0, 192, 0, 2]),
    },
    9,
    { edns: false },
  ));
  assert.equal(q.edns, undefined);
  assert.equal(q.arcount, 0);
  assert.equal(q.cd, true);
  assert.equal(q.rd, true);
});
