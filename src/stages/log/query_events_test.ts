import assert from "node:assert/strict";
import { RCODE, TYPE } from "../../dns/wire/constants.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { buildRequest } from "../../pipeline/request_builder.ts";
import {
  MAX_SUMMARY,
  summarizeAnswer,
  summarizeCopy,
} from "./answer_summary.ts";
import { createQueryEventBuffer } from "./query_events.ts";
import {
  PackHint,
  unpackQueryEvents,
} from "../../pipeline/query_event_pack.ts";
import { QueryEventReceiver } from "../../pipeline/query_event_receiver.ts";

const QUESTION = { name: "www.example.org.", type: TYPE.A, class: 1 };

function answerWire(answer: Parameters<typeof encodeResponse>[0]["answer"]) {
  return encodeResponse({
    id: 7,
    opcode: 0,
    rcode: RCODE.NOERROR,
    ad: true,
    question: QUESTION,
    ...(answer ? { answer } : {}),
  }, 65535);
}

Deno.test("summarizeAnswer renders addresses and names of the answer section", () => {
  const wire = answerWire([
    {
      name: "www.example.org.",
      type: TYPE.CNAME,
      ttl: 60,
      rdata: [{ type: "CNAME", target: "edge.example.net." }],
    },
    {
      name: "edge.example.net.",
      type: TYPE.A,
      ttl: 60,
      rdata: [
        { type: "A", address: "192.0.2.1" },
        { type: "A", address: "192.0.2.2" },
      ],
    },
    {
      name: "edge.example.net.",
      type: TYPE.AAAA,
      ttl: 60,
      rdata: [{ type: "AAAA", address: "2001:db8::1" }],
    },
    {
      name: "edge.example.net.",
      type: TYPE.TXT,
      ttl: 60,
      rdata: [{ type: "TXT", strings: [new TextEncoder().encode("hello")] }],
    },
  ]);
  assert.deepEqual(summarizeAnswer(wire), {
    rcode: 0,
    authenticData: true,
    text:
      'CNAME edge.example.net., A 192.0.2.1, A 192.0.2.2, AAAA 2001:db8::1, TXT "hello"',
  });
});

Deno.test("summarizeAnswer quotes a TXT record's first string and names an MX exchange", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const wire = answerWire([
    {
      name: "www.example.org.",
      type: TYPE.TXT,
      ttl: 60,
      rdata: [
        { type: "TXT", strings: [bytes('say "hi"\\\n'), bytes("more")] },
        { type: "TXT", strings: [bytes("x".repeat(60))] },
      ],
    },
    {
      name: "www.example.org.",
      type: TYPE.MX,
      ttl: 60,
      rdata: [{ type: "MX", preference: 10, exchange: "Mail.Example.org." }],
    },
  ]);
  assert.equal(
    summarizeAnswer(wire).text,
    `TXT "say \\"hi\\"\\\\\\010"…, TXT "${
      "x".repeat(40)
    }"…, MX 10 mail.example.org.`,
  );
});

Deno.test("summarizeCopy summarises a stored answer once, and again when the header it reads differs", () => {
  const stored = answerWire([{
    name: "www.example.org.",
    type: TYPE.CNAME,
    ttl: 60,
    rdata: [{ type: "CNAME", target: "Edge.Example.NET." }],
  }]);
  const source = {};
  const first = summarizeCopy(stored.slice(), source);
  const { hint, ...fields } = first;
  assert.ok(hint instanceof PackHint, "its copies share a packing hint");
  assert.deepEqual(fields, {
    rcode: 0,
    authenticData: true,
    text: "CNAME edge.example.net.", // targets lowercased
  });
  // Another copy (new ID, other TTLs): the same summary object.
  const copy = stored.slice();
  copy[0] = 0x12;
  // Header 12 + question 21 + owner pointer 2 + type and class 4: the TTL.
  assert.equal(
    copy[39]! << 24 | copy[40]! << 16 | copy[41]! << 8 | copy[42]!,
    60,
  );
  copy[42] = 59;
  assert.equal(summarizeCopy(copy, source), first);
  // AD cleared for this client: summarised afresh.
  const noAd = stored.slice();
  noAd[3] = noAd[3]! & ~0x20;
  assert.equal(summarizeCopy(noAd, source).authenticData, false);
  // Truncated (no answers left): afresh, and empty.
  const truncated = stored.slice();
  truncated[6] = truncated[7] = 0;
  assert.equal(summarizeCopy(truncated, source).text, "");
  // No source: always afresh.
  assert.notEqual(summarizeCopy(stored, undefined), first);
  assert.deepEqual(summarizeCopy(stored, undefined), fields, "and no hint");
});

Deno.test("summarizeAnswer is short, bounded and never throws", () => {
  const many = answerWire([{
    name: "www.example.org.",
    type: TYPE.A,
    ttl: 60,
    rdata: Array.from({ length: 20 }, (_, i) => ({
      type: "A" as const,
      address: `192.0.2.${i + 1}`,
    })),
  }]);
  const summary = summarizeAnswer(many).text;
  assert.match(summary, /^A 192\.0\.2\.1, .*, \+12 more$/);
  assert.ok(summary.length <= MAX_SUMMARY);
  assert.deepEqual(summarizeAnswer(new Uint8Array(3)), {
    rcode: -1,
    authenticData: false,
    text: "",
  });
  // A header that promises records the message does not hold.
  const broken = many.slice(0, 40);
  assert.doesNotThrow(() => summarizeAnswer(broken));
  for (let cut = 12; cut < many.length; cut += 7) {
    assert.doesNotThrow(() => summarizeAnswer(many.slice(0, cut)));
  }
});

Deno.test("the event buffer records who asked, what, the answer and why", () => {
  const buffer = createQueryEventBuffer();
  const req = requestFor("WWW.example.org. A", { edns: { do: true } });
  req.groups = ["default/kids"];
  const res: Response = {
    status: "blocked_list",
    stage: "blocking",
    list: "ads",
    rule: "||www.example.org^",
  };
  const bytes = answerWire([{
    name: "www.example.org.",
    type: TYPE.A,
    ttl: 600,
    rdata: [{ type: "A", address: "0.0.0.0" }],
  }]);
  buffer.record(req, res, bytes, 0.25);
  assert.equal(buffer.pending, 1);
  const batch = buffer.drain();
  assert.equal(batch.dropped, 0);
  const { events } = batch;
  const arrived = structuredClone(events, {
    transfer: [
      events.times.buffer as ArrayBuffer,
      events.ints.buffer as ArrayBuffer,
    ],
  });
  assert.deepEqual(unpackQueryEvents(arrived), [{
    time: 0,
    node: "node-a",
    clientAddress: "192.0.2.7",
    clientPort: 40000,
    transport: "udp",
    groups: ["default/kids"],
    qname: "www.example.org.",
    qtype: TYPE.A,
    qclass: 1,
    rcode: 0,
    status: "blocked_list",
    stage: "blocking",
    list: "ads",
    rule: "||www.example.org^",
    dnssecOk: true,
    authenticData: true,
    answer: "A 0.0.0.0",
    responseSize: bytes.length,
    durationUs: 250,
  }]);
  const again = buffer.drain();
  assert.deepEqual([again.events.count, again.dropped], [0, 0]);
  assert.equal(buffer.pending, 0);
});

Deno.test("the event buffer keeps an extended RCODE: BADVERS is 16, not the header's 0", () => {
  const buffer = createQueryEventBuffer();
  const req = requestFor("www.example.org. A", { edns: { do: false } });
  const res = answer(req, "ingress", "badvers", RCODE.BADVERS);
  const bytes = encodeResponse(
    { ...res.message!, edns: { udpSize: 1232 } },
    512,
  );
  assert.equal(bytes[3]! & 0x0f, 0, "the header alone says NOERROR");
  buffer.record(req, res, bytes, 0.1);
  const [event] = unpackQueryEvents(buffer.drain().events);
  assert.equal(event?.rcode, RCODE.BADVERS);
});

Deno.test("the event buffer drops and counts beyond its bound, and skips unlogged answers", () => {
  const buffer = createQueryEventBuffer({ maxPending: 2 });
  const req = requestFor("www.example.org. A");
  const res: Response = { status: "forwarded", stage: "upstream" };
  for (let i = 0; i < 5; i++) buffer.record(req, res, null, 1);
  buffer.record(req, { ...res, unlogged: true }, null, 1);
  const quiet = requestFor("www.example.org. A");
  quiet.policy = {
    policies: ["default/private"],
    blockLists: [],
    allowLists: [],
    allowOnly: false,
    response: { mode: "zeroIP", customIPs: [], ttl: 600 },
    queryLog: false,
  };
  buffer.record(quiet, res, null, 1);
  assert.equal(buffer.pending, 2);
  const batch = buffer.drain();
  const events = unpackQueryEvents(batch.events);
  assert.equal(batch.events.count, 2);
  assert.equal(events.length, 2);
  assert.equal(batch.dropped, 3);
  assert.equal(events[0]!.rcode, -1, "nothing sent");
  assert.equal(events[0]!.responseSize, 0);
  assert.equal(events[0]!.upstream, undefined);
  // Room again once drained.
  buffer.record(req, res, null, 1);
  assert.deepEqual([buffer.pending, buffer.drain().dropped], [1, 0]);
});

Deno.test("the event buffer keeps recording past its first capacity, batch after batch", () => {
  const buffer = createQueryEventBuffer({ maxPending: 5000 });
  const receiver = new QueryEventReceiver();
  const res: Response = { status: "forwarded", stage: "upstream" };
  for (const round of [1, 2]) {
    for (let i = 0; i < 3000; i++) {
      buffer.record(requestFor(`n${i % 7}.example. A`), res, null, i);
    }
    const batch = buffer.drain();
    assert.equal(batch.dropped, 0, `round ${round}`);
    assert.equal(batch.events.count, 3000, `round ${round}`);
    assert.equal(
      batch.events.strings.filter((s) => s.endsWith(".example.")).length,
      round === 1 ? 7 : 0,
      "each name once, in the first batch of the table",
    );
    const events = unpackQueryEvents(receiver.receive(batch.events));
    assert.equal(events.length, 3000, `round ${round}`);
    assert.equal(events[2999]!.qname, `n${2999 % 7}.example.`);
    assert.equal(events[2999]!.durationUs, 2999 * 1000);
  }
});

Deno.test("the event buffer fills the arrays handed back to it", () => {
  const buffer = createQueryEventBuffer({ maxPending: 5000 });
  const receiver = new QueryEventReceiver();
  const res: Response = { status: "forwarded", stage: "upstream" };
  const record = (n: number) => {
    for (let i = 0; i < n; i++) {
      buffer.record(requestFor(`n${i}.example. A`), res, null, i);
    }
  };
  /** Across to the main thread, or back: the arrays transferred. */
  const transfer = <T extends { times: Float64Array; ints: Int32Array }>(
    value: T,
  ) =>
    structuredClone(value, {
      transfer: [
        value.times.buffer as ArrayBuffer,
        value.ints.buffer as ArrayBuffer,
      ],
    });
  record(3000);
  const first = transfer(buffer.drain().events);
  assert.equal(unpackQueryEvents(receiver.receive(first)).length, 3000);
  const back = transfer({ times: first.times, ints: first.ints });
  buffer.recycle(back.times, back.ints);
  record(2000);
  const { events } = buffer.drain();
  assert.equal(events.times.buffer, back.times.buffer);
  assert.equal(events.ints.buffer, back.ints.buffer);
  const again = unpackQueryEvents(receiver.receive(transfer(events)));
  assert.equal(again.length, 2000);
  assert.equal(again[1999]!.qname, "n1999.example.");
  assert.equal(again[1999]!.durationUs, 1999 * 1000);
});

Deno.test("a malformed query's event says why it was refused", () => {
  // ARCOUNT says 3, but one OPT record follows the question.
  const hex =
    "abcd0100000100000000000303777777076b7564757272750474657374000001000100002904d0000000000000";
  const bytes = Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
  const req = buildRequest(bytes, {
    client: { address: "192.0.2.7", port: 40000, transport: "udp" },
    snapshot: undefined,
    node: { name: "node-a", version: "1.2.3" },
    received: 0,
  });
  assert.ok(req.malformed !== undefined);
  const buffer = createQueryEventBuffer();
  const wire = encodeResponse(
    { id: 0xabcd, opcode: 0, rcode: RCODE.FORMERR },
    512,
  );
  buffer.record(req, { status: "formerr", stage: "ingress" }, wire, 0.01);
  const [event] = unpackQueryEvents(buffer.drain().events);
  assert.equal(event!.answer, `malformed: ${req.malformed.message}`);
  assert.notEqual(req.malformed.message, "");
});
