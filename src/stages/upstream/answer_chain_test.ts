import assert from "node:assert/strict";
import { requestFor } from "../../testing/fixtures.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { upstreamWire } from "../cache/testdata/answers.ts";
import { dnameRewrite } from "./answer_chain.ts";
import { askedQuestion, scrubbedAnswer } from "./answer_scrub.ts";

/** The answer section kept from an upstream answer to `question`. */
function kept(question: string, answer: string[]): string[] {
  const req = requestFor(question);
  const message = upstreamWire(req, { answer });
  return decodeAnswer(scrubbedAnswer(message, askedQuestion(req))).answer;
}

Deno.test("scrubbedAnswer keeps the question's records and its CNAME chain, in any order", () => {
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

Deno.test("scrubbedAnswer drops records for other names", async (t) => {
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

Deno.test("scrubbedAnswer keeps a DNAME above the chain and its synthesized CNAME", () => {
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

Deno.test("scrubbedAnswer hands back the same message when all is on the chain", () => {
  const req = requestFor("www.example.org. A");
  const message = upstreamWire(req, {
    answer: ["www.example.org. 300 IN A 192.0.2.1"],
  });
  assert.equal(scrubbedAnswer(message, askedQuestion(req)), message);
});

Deno.test("scrubbedAnswer keeps the target's data after a DNAME without its synthesized CNAME", () => {
  assert.deepEqual(
    kept("www.example.org. A", [
      "example.org. 300 IN DNAME example.net.",
      "www.example.net. 300 IN A 192.0.2.1",
    ]).length,
    2,
  );
});

Deno.test("dnameRewrite substitutes the owner label by label", () => {
  const cases: [string, string, string, string | undefined][] = [
    ["www.example.org.", "example.org.", "example.net.", "www.example.net."],
    ["a.b.example.org.", "example.org.", ".", "a.b."],
    ["www.example.org.", ".", "example.net.", "www.example.org.example.net."],
    ["example.org.", "example.org.", "example.net.", undefined], // not below
    ["wwwexample.org.", "example.org.", "example.net.", undefined],
    ["x\\.example.org.", "example.org.", "example.net.", undefined], // one label
    ["y.x\\.example.org.", "x\\.example.org.", "n.", "y.n."],
  ];
  for (const [name, owner, target, want] of cases) {
    assert.equal(dnameRewrite(name, owner, target), want, name);
  }
});

Deno.test("scrubbedAnswer follows a chain through at most 32 names", () => {
  // c0 → c1 → … → c1999, written last link first.
  const links = Array.from(
    { length: 1999 },
    (_, i) =>
      `c${1998 - i}.example.org. 300 IN CNAME c${1999 - i}.example.org.`,
  );
  const answer = kept("c0.example.org. A", links);
  assert.equal(answer.length, 32);
  assert.ok(answer.every((r) => /^c([0-9]|[12][0-9]|3[01])\.example/.test(r)));
});
