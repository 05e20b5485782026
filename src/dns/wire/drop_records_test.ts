import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { HEADER_OCTETS } from "./query.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { upstreamWire } from "../../stages/cache/testdata/answers.ts";
import { requestFor } from "../../testing/fixtures.ts";
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

Deno.test("dropRecords expands a NAPTR replacement that points into a dropped record", () => {
  const name = (...labels: string[]) =>
    labels.flatMap((l) => [l.length, ...new TextEncoder().encode(l)]);
  const u16 = (n: number) => [n >> 8, n & 0xff];
  const header = [0, 1, 0x81, 0x80, ...u16(1), ...u16(2), 0, 0, 0, 0];
  const question = [...name("www", "example", "org"), 0, ...u16(35), 0, 1];
  const dropped = HEADER_OCTETS + question.length; // where `victim` starts
  // victim.example.org. 300 A 198.51.100.6, the owner pointing into the question
  // deno-fmt-ignore
  const victim = [...name("victim"), 0xc0, HEADER_OCTETS + 4,
    ...u16(1), 0, 1, 0, 0, 1, 0x2c, ...u16(4), 198, 51, 100, 6];
  // NAPTR 10 20 "U" "" "" with the replacement → victim.example.org. above
  // deno-fmt-ignore
  const naptrData = [...u16(10), ...u16(20), 1, 0x55, 0, 0, 0xc0, dropped];
  // deno-fmt-ignore
  const naptr = [0xc0, HEADER_OCTETS, ...u16(35), 0, 1, 0, 0, 1, 0x2c,
    ...u16(naptrData.length), ...naptrData];
  const message = new Uint8Array([...header, ...question, ...victim, ...naptr]);
  const out = dropRecords(message, new Set([0]));
  const decoded = dnsPacket.decode(Buffer.from(out));
  assert.equal(decoded.answers?.length, 1);
  const answer = decoded.answers![0] as { data: { replacement: string } };
  assert.equal(answer.data.replacement, "victim.example.org");
});
