import assert from "node:assert/strict";
import { requestFor } from "../../pipeline/testing/mod.ts";
import { AnswerMemo } from "./answer_memo.ts";

/** A stand-in answer: a query's bytes with QR set, as a memo would keep it. */
function wireFor(question: string): Uint8Array {
  const wire = requestFor(question).bytes.slice();
  wire[2]! |= 0x80;
  return wire;
}

Deno.test("answer memo keeps at most its limit", () => {
  const memo = new AnswerMemo(4);
  for (const name of ["a", "b", "c", "d", "e", "f", "g"]) {
    memo.set(name, wireFor(`${name}.example. A`));
  }
  assert.ok(memo.size <= 4);
  assert.equal(
    memo.get("g", requestFor("g.example. A"))?.wire[2]! & 0x80,
    0x80,
  );
});

Deno.test("answer memo keeps an answer that is read while others come and go", () => {
  const memo = new AnswerMemo(4);
  memo.set("hot", wireFor("hot.example. A"));
  for (const name of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
    memo.set(name, wireFor(`${name}.example. A`));
    assert.ok(memo.get("hot", requestFor("hot.example. A")), name);
  }
  assert.equal(memo.get("a", requestFor("a.example. A")), undefined);
});

Deno.test("answer memo hits carry the query's ID and the client's case", () => {
  const memo = new AnswerMemo();
  memo.set("www", wireFor("www.example. A"));
  const req = requestFor("wWw.ExAmple. A", { id: 0xbeef });
  const stored = wireFor("www.example. A");
  memo.set("www2", stored);
  const { wire: hit } = memo.get("www", req)!;
  assert.equal((hit[0]! << 8) | hit[1]!, 0xbeef);
  assert.deepEqual(hit.subarray(12, 26), req.bytes.subarray(12, 26));
  assert.equal(memo.hits, 1);
  // The source comes back too (the query log summarises it once); the
  // copy is a copy.
  const second = memo.get("www2", requestFor("www.example. A"))!;
  assert.equal(second.stored, stored);
  assert.notEqual(second.wire, stored);
});

Deno.test("answer memo misses a stored answer for a different name", () => {
  const memo = new AnswerMemo();
  memo.set("www", wireFor("www.example. A"));
  assert.equal(memo.get("www", requestFor("xyz.example. A")), undefined);
});
