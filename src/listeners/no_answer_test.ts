import assert from "node:assert/strict";
import { decodeResponse, queryMessage } from "../testing/dns_client.ts";
import { noAnswerServfail } from "./no_answer.ts";

Deno.test("noAnswerServfail: SERVFAIL with the query's ID, question, RD and CD", () => {
  const query = queryMessage("dropped.test", "AAAA", { id: 4242 });
  query[3]! |= 0x10; // CD
  const reply = noAnswerServfail(query);
  assert.ok(reply);
  const m = decodeResponse(reply);
  assert.equal(m.id, 4242);
  assert.equal(m.rcode, "SERVFAIL");
  assert.equal(m.flag_rd, true);
  assert.equal(m.flag_aa, false);
  assert.equal(m.flag_tc, false);
  assert.equal(reply[2]! & 0x80, 0x80, "QR");
  assert.equal(reply[3]! & 0x80, 0x80, "RA");
  assert.equal(reply[3]! & 0x10, 0x10, "CD kept");
  assert.deepEqual(m.questions, [{
    name: "dropped.test",
    type: "AAAA",
    class: "IN",
  }]);
  assert.deepEqual(m.answers, []);
  assert.deepEqual(m.additionals, []);
});

Deno.test("noAnswerServfail adds an OPT record without options when the query had EDNS", () => {
  const reply = noAnswerServfail(
    queryMessage("dropped.test", "A", { id: 1, edns: true }),
  );
  assert.ok(reply);
  const m = decodeResponse(reply);
  assert.equal(m.rcode, "SERVFAIL");
  assert.equal(m.additionals.length, 1);
  assert.equal(m.additionals[0]!.type, "OPT");
  assert.equal(m.additionals[0]!.udpPayloadSize, 1232);
  // No Extended DNS Error: nothing is known of why the pipeline sent nothing.
  assert.deepEqual(m.additionals[0]!.data ?? [], []);
});

Deno.test("noAnswerServfail gives nothing for a response or an unreadable question", () => {
  const response = queryMessage("x.test", "A");
  response[2]! |= 0x80;
  assert.equal(noAnswerServfail(response), undefined);
  assert.equal(noAnswerServfail(new Uint8Array(11)), undefined);
  const cut = queryMessage("x.test", "A").subarray(0, 16);
  assert.equal(noAnswerServfail(cut), undefined);
});
