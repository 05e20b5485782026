import assert from "node:assert/strict";
import { decodeAnswer, requestFor } from "../../pipeline/testing/mod.ts";
import { upstreamWire } from "../cache/testdata/answers.ts";
import { withoutOffChainAnswers } from "./answer_chain.ts";

/** The answer section kept from an upstream answer to `question`. */
function kept(question: string, answer: string[]): string[] {
  const req = requestFor(question);
  const message = upstreamWire(req, { answer });
  return decodeAnswer(withoutOffChainAnswers(message, req.qname)).answer;
}

Deno.test("withoutOffChainAnswers keeps the question's records and its CNAME chain, in any order", () => {
  const answer = [
    "web.example.net. 300 IN A 192.0.2.1",
    "www.example.org. 300 IN CNAME edge.example.com.",
    "edge.example.com. 300 IN CNAME web.example.net.",
  ];
  // The owner points at the question's name, so it comes back as WWW.
  const lower = kept("WWW.example.org. A", answer).map((r) => r.toLowerCase());
  assert.deepEqual(
    lower.sort(),
    answer.map((r) => r.toLowerCase()).sort(),
  );
});

Deno.test("withoutOffChainAnswers drops records for other names", async (t) => {
  await t.step("beside a right answer", () => {
    assert.deepEqual(
      kept("www.example.org. A", [
        "www.example.org. 300 IN A 192.0.2.1",
        "www.victim.example. 86400 IN A 198.51.100.6",
      ]),
      ["www.example.org. 300 IN A 192.0.2.1"],
    );
  });
  await t.step("alone: nothing is left", () => {
    assert.deepEqual(
      kept("www.example.org. A", [
        "www.victim.example. 86400 IN A 198.51.100.6",
      ]),
      [],
    );
  });
  await t.step("after a CNAME to somewhere else", () => {
    assert.deepEqual(
      kept("www.example.org. A", [
        "www.example.org. 300 IN CNAME web.example.org.",
        "other.example.org. 300 IN A 198.51.100.6",
      ]),
      ["www.example.org. 300 IN CNAME web.example.org."],
    );
  });
});

Deno.test("withoutOffChainAnswers keeps a DNAME above the chain and its synthesized CNAME", () => {
  const answer = [
    "example.org. 300 IN DNAME example.net.",
    "www.example.org. 300 IN CNAME www.example.net.",
    "www.example.net. 300 IN A 192.0.2.1",
  ];
  assert.deepEqual(kept("www.example.org. A", answer).length, 3);
  assert.deepEqual(
    kept("www.example.org. A", ["sub.other.org. 300 IN DNAME example.net."]),
    [],
  );
});

Deno.test("withoutOffChainAnswers hands back the same message when all is on the chain", () => {
  const req = requestFor("www.example.org. A");
  const message = upstreamWire(req, {
    answer: ["www.example.org. 300 IN A 192.0.2.1"],
  });
  assert.equal(withoutOffChainAnswers(message, req.qname), message);
});
