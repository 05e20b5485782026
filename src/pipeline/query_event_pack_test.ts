import assert from "node:assert/strict";
import type { QueryEvent } from "./query_event.ts";
import {
  EV,
  EVENT_INTS,
  FLAG_AD,
  FLAG_DO,
  isPackedQueryEvents,
  type PackedQueryEvents,
  packQueryEvents,
  QueryEventPacker,
  unpackQueryEvents,
} from "./query_event_pack.ts";

const base: QueryEvent = {
  time: 1_790_000_000_123.5,
  node: "node-a",
  clientAddress: "2001:db8::7",
  clientPort: 5353,
  transport: "tcp",
  groups: ["home/kids", "home/tablets"],
  qname: "ads.example.",
  qtype: 28,
  qclass: 1,
  rcode: 3,
  status: "blocked_list",
  stage: "blocking",
  list: "ads",
  rule: "||ads.example^",
  dnssecOk: true,
  authenticData: false,
  answer: "",
  responseSize: 97,
  durationUs: 412,
};

const { list: _list, rule: _rule, ...unblocked } = base;
const forwarded: QueryEvent = {
  ...unblocked,
  upstream: "resolver-1",
  groups: [],
  authenticData: true,
  dnssecOk: false,
  rcode: -1,
};

/** The batch as the main thread gets it: cloned, its arrays transferred. */
function sent(batch: PackedQueryEvents): PackedQueryEvents {
  return structuredClone(batch, {
    transfer: [
      batch.times.buffer as ArrayBuffer,
      batch.ints.buffer as ArrayBuffer,
    ],
  });
}

Deno.test("packed query events cross a transfer unchanged", () => {
  const events = [base, forwarded, { ...base, qname: "other.example." }];
  const batch = packQueryEvents(events);
  assert.equal(batch.count, 3);
  assert.equal(batch.ints.length, 3 * EVENT_INTS);
  const arrived = sent(batch);
  assert.equal(batch.times.byteLength, 0, "transferred, not copied");
  assert.equal(batch.ints.byteLength, 0, "transferred, not copied");
  assert.ok(isPackedQueryEvents(arrived));
  assert.deepEqual(unpackQueryEvents(arrived), events);
});

Deno.test("a batch holds each distinct string once", () => {
  const batch = packQueryEvents([base, { ...base, clientPort: 1 }, base]);
  assert.equal(batch.strings.filter((s) => s === "ads.example.").length, 1);
  assert.equal(new Set(batch.strings).size, batch.strings.length);
  const qnameOf = (i: number) => batch.ints[i * EVENT_INTS + EV.qname];
  assert.equal(qnameOf(0), qnameOf(2));
  assert.equal(batch.strings[qnameOf(1)!], "ads.example.");
  assert.equal(
    batch.strings[batch.ints[EV.groups]!],
    "home/kids,home/tablets",
  );
});

Deno.test("absent optional fields pack as -1 and unpack as absent", () => {
  const { list: _l, rule: _r, ...plain } = base;
  const batch = packQueryEvents([plain]);
  assert.equal(batch.ints[EV.upstream], -1);
  assert.equal(batch.ints[EV.list], -1);
  assert.equal(batch.ints[EV.rule], -1);
  assert.equal(batch.ints[EV.flags], FLAG_DO);
  const [event] = unpackQueryEvents(batch);
  assert.ok(event);
  assert.equal("upstream" in event, false);
  assert.equal("list" in event, false);
  assert.equal("rule" in event, false);
  assert.deepEqual(event, plain);
  assert.equal(packQueryEvents([forwarded]).ints[EV.flags], FLAG_AD);
});

Deno.test("a packer grows past its first capacity and starts over after take", () => {
  const packer = new QueryEventPacker(2);
  const events = Array.from(
    { length: 9 },
    (_, i) => ({ ...base, clientPort: i, qname: `n${i % 3}.example.` }),
  );
  for (const e of events) packer.add(e);
  assert.equal(packer.count, 9);
  const batch = packer.take();
  assert.equal(packer.count, 0);
  assert.equal(batch.times.length, 9);
  assert.deepEqual(unpackQueryEvents(sent(batch)), events);
  // The next batch stands alone: its strings and arrays start afresh.
  packer.add(forwarded);
  const next = packer.take();
  assert.equal(next.count, 1);
  assert.equal(next.strings.includes("n0.example."), false);
  assert.deepEqual(unpackQueryEvents(next), [forwarded]);
  const empty = packer.take();
  assert.equal(empty.count, 0);
  assert.deepEqual(unpackQueryEvents(empty), []);
});

Deno.test("a duration beyond int32 is clamped, not wrapped", () => {
  const long = { ...base, durationUs: 2 ** 33 };
  const [event] = unpackQueryEvents(packQueryEvents([long]));
  assert.equal(event?.durationUs, 0x7fffffff);
});

Deno.test("a malformed batch unpacks to nothing", () => {
  const good = () => packQueryEvents([base, forwarded]);
  const cases: [string, unknown][] = [
    ["null", null],
    ["an array", [1, 2, 3]],
    ["a negative count", { ...good(), count: -1 }],
    ["a fractional count", { ...good(), count: 1.5 }],
    ["a count the arrays do not hold", { ...good(), count: 3 }],
    ["strings that are no array", { ...good(), strings: "node-a" }],
    ["times that are plain numbers", { ...good(), times: [1, 2] }],
    ["ints of the wrong type", {
      ...good(),
      ints: new Float64Array(2 * EVENT_INTS),
    }],
    ["ints one short", { ...good(), ints: good().ints.slice(1) }],
  ];
  for (const [what, batch] of cases) {
    assert.equal(isPackedQueryEvents(batch), false, what);
    assert.deepEqual(unpackQueryEvents(batch), [], what);
  }
});

Deno.test("an event naming a string the batch lacks is skipped", () => {
  const batch = packQueryEvents([base, forwarded]);
  batch.ints[EV.qname] = batch.strings.length; // first event: out of range
  assert.deepEqual(unpackQueryEvents(batch), [forwarded]);
  batch.ints[EVENT_INTS + EV.node] = -1; // a required string marked absent
  assert.deepEqual(unpackQueryEvents(batch), []);
  const notText = packQueryEvents([base]);
  notText.strings[notText.ints[EV.answer]!] = 7 as unknown as string;
  assert.deepEqual(unpackQueryEvents(notText), []);
});

Deno.test("an event that cannot be packed leaves the batch as it was", () => {
  const packer = new QueryEventPacker(4);
  packer.add(base);
  const broken = { ...base, groups: null } as unknown as QueryEvent;
  assert.throws(() => packer.add(broken));
  assert.equal(packer.count, 1);
  assert.deepEqual(unpackQueryEvents(packer.take()), [base]);
});
