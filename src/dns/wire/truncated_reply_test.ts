import assert from "node:assert/strict";
import {
  headerAndQuestion,
  optRecordOf,
  oversizeQueryAnswer,
} from "./truncated_reply.ts";

/** ID 0x1234, RD, QDCOUNT 1, ANCOUNT 2, ARCOUNT 1, question a.test. A IN, then a cut record. */
// deno-fmt-ignore
const CUT = new Uint8Array([
  0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 1,
  1, 0x61, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1,
  0xc0, 0x0c, 0, 1, 0, 1, 0, 0,
]);

Deno.test("headerAndQuestion keeps the header and question, no records", () => {
  // deno-fmt-ignore
  assert.deepEqual([...headerAndQuestion(CUT)!], [
    0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0,
    1, 0x61, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1,
  ]);
  assert.equal(CUT[2], 0x81, "a copy: the message is left alone");
});

Deno.test("headerAndQuestion keeps only the header without exactly one question", () => {
  const two = CUT.slice();
  two[5] = 2;
  assert.deepEqual(
    [...headerAndQuestion(two)!],
    [0x12, 0x34, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0],
  );
});

Deno.test("headerAndQuestion is undefined when the question cannot be read", () => {
  assert.equal(headerAndQuestion(CUT.subarray(0, 8)), undefined);
  assert.equal(headerAndQuestion(CUT.subarray(0, 20)), undefined, "name cut");
  assert.equal(headerAndQuestion(CUT.subarray(0, 22)), undefined, "type cut");
});

Deno.test("optRecordOf finds an OPT record of the additional section, even cut", () => {
  // ID, QDCOUNT 1, ARCOUNT 1; a. A IN; OPT (version 1) with a 5,000-octet padding option.
  // deno-fmt-ignore
  const query = new Uint8Array([
    0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1,
    1, 0x61, 0, 0, 1, 0, 1,
    0, 0, 41, 0x04, 0xd0, 0, 1, 0, 0, 0x13, 0x8c, 0, 12, 0x13, 0x88,
  ]);
  assert.deepEqual(optRecordOf(query), { version: 1 }, "RDATA cut");
  assert.deepEqual(
    optRecordOf(query.subarray(0, 22)),
    { version: 0 },
    "owner and type only",
  );
  assert.equal(
    optRecordOf(query.subarray(0, 20)),
    undefined,
    "the type itself cut",
  );
  const noAdditional = query.slice();
  noAdditional[11] = 0;
  assert.equal(optRecordOf(noAdditional), undefined);
  assert.equal(
    optRecordOf(CUT),
    undefined,
    "a cut answer record is not an OPT",
  );
});

Deno.test("oversizeQueryAnswer answers a query's header and question TC=1, FORMERR without one question", () => {
  const query = CUT.slice();
  query[2] = 0x01; // a query: RD
  query[3] = 0x00;
  // deno-fmt-ignore
  assert.deepEqual([...oversizeQueryAnswer(query)!], [
    0x12, 0x34, 0x83, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
    1, 0x61, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1,
  ]);
  query[5] = 2;
  const formerr = oversizeQueryAnswer(query)!;
  assert.equal(formerr[3]! & 0x0f, 1, "FORMERR");
  assert.equal(formerr[2]! & 0x02, 0, "no TC");
  assert.equal(oversizeQueryAnswer(CUT), undefined, "a response: nothing");
});
