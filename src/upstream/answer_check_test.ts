import assert from "node:assert/strict";
import { EDNS_OPTION, OPCODE, RCODE, TYPE } from "../dns/wire/constants.ts";
import { extendedError } from "../dns/wire/extended_error.ts";
import { parseQuery } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { checkAnswer, expectationOf, matchesQuery } from "./answer_check.ts";
import { buildQuery } from "./build_query.ts";
import { BROKEN_ANSWERS } from "./testdata/broken_answers.ts";
import { answer, errorWithoutQuestion } from "./testdata/scripted_upstream.ts";

const query = buildQuery({
  name: "www.Example.org.",
  type: TYPE.A,
  class: 1,
  dnssecOk: false,
  checkingDisabled: false,
}, 77);
const info = parseQuery(query);
const expected = expectationOf(query);

Deno.test("checkAnswer accepts the answer in any name case", () => {
  const verdict = checkAnswer(
    expected,
    answer(info, { name: "WWW.EXAMPLE.ORG.", rcode: RCODE.NXDOMAIN }),
  );
  assert.deepEqual(verdict, {
    ok: true,
    rcode: RCODE.NXDOMAIN,
    truncated: false,
    edns: false,
    extendedErrors: [],
  });
});

Deno.test("checkAnswer reports TC", () => {
  const verdict = checkAnswer(expected, answer(info, { tc: true }));
  assert.equal(verdict.ok && verdict.truncated, true);
});

Deno.test("checkAnswer drops what does not answer the query", async (t) => {
  const cases: [string, Uint8Array, RegExp][] = [
    ["another ID", answer(info, { id: 78 }), /ID 78 is not 77/],
    [
      "another name",
      answer(info, { name: "evil.example.org." }),
      /question differs/,
    ],
    [
      "another type",
      answer({ ...info, question: { ...info.question!, type: TYPE.AAAA } }),
      /question differs/,
    ],
    [
      "another class",
      answer({ ...info, question: { ...info.question!, class: 3 } }),
      /question differs/,
    ],
    ["the query itself", query, /not a response/],
    [
      "another opcode",
      answer({ ...info, opcode: OPCODE.NOTIFY }),
      /opcode 4 is not QUERY/,
    ],
    ["garbage", new Uint8Array([0, 77, 0x80]), /malformed/],
    [
      "no question in a NOERROR answer",
      errorWithoutQuestion(info, RCODE.NOERROR),
      /question differs/,
    ],
    [
      "no question in an NXDOMAIN answer",
      errorWithoutQuestion(info, RCODE.NXDOMAIN),
      /question differs/,
    ],
  ];
  for (const [name, message, why] of cases) {
    await t.step(name, () => {
      const verdict = checkAnswer(expected, message);
      assert.equal(verdict.ok, false);
      assert.match(verdict.ok ? "" : verdict.why, why);
    });
  }
});

Deno.test("checkAnswer reads the Extended DNS Errors, leaving out one without an INFO-CODE", () => {
  const why = extendedError(6, "validation failure");
  const message = encodeResponse({
    id: info.id,
    opcode: info.opcode,
    rcode: RCODE.SERVFAIL,
    rd: true,
    ra: true,
    question: info.question!,
    edns: {
      udpSize: 1232,
      options: [
        { code: EDNS_OPTION.EDE, data: why },
        { code: EDNS_OPTION.EDE, data: new Uint8Array([0]) },
      ],
    },
  }, 65535);
  const verdict = checkAnswer(expected, message);
  assert.deepEqual(verdict.ok && verdict.extendedErrors, [why]);
});

Deno.test("checkAnswer takes an error answer without a question as a failure answer", async (t) => {
  for (
    const rcode of [RCODE.FORMERR, RCODE.SERVFAIL, RCODE.NOTIMP, RCODE.REFUSED]
  ) {
    await t.step(`RCODE ${rcode}`, () => {
      const verdict = checkAnswer(expected, errorWithoutQuestion(info, rcode));
      assert.deepEqual(verdict, {
        ok: true,
        rcode,
        truncated: false,
        edns: false,
        extendedErrors: [],
      });
    });
  }
});

Deno.test("checkAnswer refuses an answer to the query whose records are broken, as matched", async (t) => {
  for (const broken of BROKEN_ANSWERS) {
    await t.step(broken.name, () => {
      const message = broken.make(info);
      assert.equal(matchesQuery(expected, message), true);
      const verdict = checkAnswer(expected, message);
      assert.deepEqual(
        verdict.ok ? "accepted" : { matched: verdict.matched },
        { matched: true },
      );
      assert.match(verdict.ok ? "" : verdict.why, /^malformed: /);
    });
  }
  await t.step("the same under another ID is not matched", () => {
    const message = BROKEN_ANSWERS[0]!.make({ ...info, id: 78 });
    assert.equal(matchesQuery(expected, message), false);
    const verdict = checkAnswer(expected, message);
    assert.deepEqual(verdict, {
      ok: false,
      why: "ID 78 is not 77",
      matched: false,
    });
  });
});

Deno.test("checkAnswer says whether the answer has an OPT record", () => {
  const withOpt = encodeResponse({
    id: info.id,
    opcode: info.opcode,
    rcode: RCODE.FORMERR,
    question: info.question!,
    edns: { udpSize: 1232 },
  }, 65535);
  const verdict = checkAnswer(expected, withOpt);
  assert.equal(verdict.ok && verdict.edns, true);
  const without = checkAnswer(expected, answer(info, { rcode: RCODE.FORMERR }));
  assert.equal(without.ok && without.edns, false);
});
