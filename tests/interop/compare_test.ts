/** Normalisation and diffs of decoded responses. */
import assert from "node:assert/strict";
import { diffResponses, normalizeResponse } from "./compare.ts";
import type { DecodedResponse } from "../../src/testing/dns_client.ts";

function response(answers: DecodedResponse["answers"]): DecodedResponse {
  return {
    id: 1,
    opcode: "QUERY",
    rcode: "NOERROR",
    flag_aa: true,
    flag_tc: false,
    flag_rd: true,
    flag_ra: false,
    questions: [{ name: "WWW.example.org", type: "A", class: "IN" }],
    answers,
    authorities: [],
    additionals: [{ name: ".", type: "OPT", class: "IN", ttl: 0, data: null }],
  };
}

const a1 = {
  name: "WWW.example.org",
  type: "A",
  class: "IN",
  ttl: 60,
  data: "192.0.2.1",
};
const a2 = {
  name: "www.example.org",
  type: "A",
  class: "IN",
  ttl: 60,
  data: "192.0.2.2",
};

Deno.test("compare normalizeResponse sorts records, lowercases owners and drops OPT", () => {
  const got = normalizeResponse(response([a2, a1]));
  assert.deepEqual(got.answer, [
    "www.example.org. 60 IN A 192.0.2.1",
    "www.example.org. 60 IN A 192.0.2.2",
  ]);
  assert.deepEqual(got.question, ["WWW.example.org. IN A"]);
  assert.equal(got.edns, true);
  assert.deepEqual(got.additional, []);
});

Deno.test("compare diffResponses is empty for the same RRset in another order", () => {
  const x = normalizeResponse(response([a1, a2]));
  const y = normalizeResponse(response([a2, a1]));
  assert.equal(diffResponses(x, y), "");
});

Deno.test("compare diffResponses names the record only one side has", () => {
  const x = normalizeResponse(response([a1, a2]));
  const y = normalizeResponse(response([a1]));
  assert.equal(
    diffResponses(x, y, ["nsd", "knot"]),
    "answer: only nsd: www.example.org. 60 IN A 192.0.2.2",
  );
});
