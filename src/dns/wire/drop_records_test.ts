import assert from "node:assert/strict";
import { decodeAnswer } from "../../pipeline/testing/mod.ts";
import { upstreamWire } from "../../stages/cache/testdata/answers.ts";
import { requestFor } from "../../pipeline/testing/mod.ts";
import { dropRecords } from "./drop_records.ts";
import { WireFormatError } from "./wire_format_error.ts";

// encodeResponse compresses: every name below example.org. after the first
// points back into earlier records, some of them into the dropped one.
const req = requestFor("www.example.org. A");
const message = upstreamWire(req, {
  answer: [
    "www.example.org. 300 IN CNAME web.example.org.",
    "victim.example.org. 300 IN A 198.51.100.6",
    "web.example.org. 300 IN A 192.0.2.1",
  ],
  authority: [
    "example.org. 300 IN NS ns1.victim.example.org.",
    "example.org. 300 IN SOA ns1.victim.example.org. hostmaster.example.org. 1 7200 900 1209600 60",
  ],
  additional: [
    "mail.victim.example.org. 300 IN MX 10 victim.example.org.",
    "_sip._udp.example.org. 300 IN SRV 1 2 5060 victim.example.org.",
  ],
});

Deno.test("dropRecords leaves the rest of the message as it was, names expanded", () => {
  const before = decodeAnswer(message);
  const after = decodeAnswer(dropRecords(message, new Set([1])));
  assert.deepEqual(after.question, before.question);
  assert.deepEqual(after.answer, [before.answer[0], before.answer[2]]);
  assert.deepEqual(after.authority, before.authority);
  assert.deepEqual(after.additional, before.additional);
  assert.equal(after.id, before.id);
});

Deno.test("dropRecords counts what each section keeps", () => {
  const before = decodeAnswer(message);
  const out = dropRecords(message, new Set([0, 3, 6]));
  assert.deepEqual([out[7], out[9], out[11]], [2, 1, 1]);
  const after = decodeAnswer(out);
  assert.deepEqual(after.answer, before.answer.slice(1));
  assert.deepEqual(after.authority, before.authority.slice(1));
  assert.deepEqual(after.additional, before.additional.slice(0, 1));
});

Deno.test("dropRecords with nothing to drop gives the same records", () => {
  const decoded = decodeAnswer(dropRecords(message, new Set()));
  assert.deepEqual(decoded, decodeAnswer(message));
});

Deno.test("dropRecords refuses a truncated message", () => {
  assert.throws(
    () => dropRecords(message.subarray(0, message.length - 3), new Set([0])),
    WireFormatError,
  );
});
