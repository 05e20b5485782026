import assert from "node:assert/strict";
import type { QueryEvent } from "./query_event.ts";
import {
  EV,
  EVENT_INTS,
  FLAG_AD,
  FLAG_DO,
  isPackedQueryEvents,
  MAX_RECYCLED,
  type PackedQueryEvents,
  PackHint,
  packQueryEvents,
  QueryEventPacker,
  unpackQueryEvents,
} from "./query_event_pack.ts";
import { QueryEventReceiver } from "./query_event_receiver.ts";

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
function sent<T extends PackedQueryEvents>(batch: T): T {
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

Deno.test("a packer grows past its first capacity; later batches carry only new strings", () => {
  const packer = new QueryEventPacker(2);
  const receiver = new QueryEventReceiver();
  const events = Array.from(
    { length: 9 },
    (_, i) => ({ ...base, clientPort: i, qname: `n${i % 3}.example.` }),
  );
  for (const e of events) packer.add(e);
  assert.equal(packer.count, 9);
  const batch = packer.take();
  assert.equal(packer.count, 0);
  assert.equal(batch.times.length, 9);
  assert.equal(batch.stringBase, 0, "the first batch starts the table");
  assert.deepEqual(unpackQueryEvents(sent(batch)), events);
  assert.ok(receiver.receive(batch));

  // The next batch's arrays start afresh; its strings are the new ones.
  const again = { ...forwarded, qname: "n0.example." };
  packer.add(again);
  const next = sent(packer.take());
  assert.equal(next.count, 1);
  assert.equal(next.table, batch.table);
  assert.equal(next.stringBase, batch.strings.length);
  // Groups "" is the answer "" of the first batch: only the upstream is new.
  assert.deepEqual(next.strings, ["resolver-1"]);
  assert.deepEqual(unpackQueryEvents(receiver.receive(next)), [again]);

  const empty = packer.take();
  assert.equal(empty.count, 0);
  assert.deepEqual(empty.strings, []);
  assert.deepEqual(unpackQueryEvents(receiver.receive(empty)), []);
});

Deno.test("a receiver refuses a batch that does not follow, until the packer restarts its table", () => {
  const packer = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  packer.add(base);
  assert.ok(receiver.receive(packer.take()));
  packer.add({ ...base, qname: "lost.example." });
  packer.take(); // never arrives
  packer.add({ ...base, qname: "next.example." });
  const gap = packer.take();
  assert.equal(receiver.receive(gap), undefined, "its strings are unknown");

  // Asked while events wait: those go in the old table, the next batch
  // starts a new one.
  const waiting = { ...base, qname: "waiting.example." };
  packer.add(waiting);
  packer.restartTable();
  assert.equal(receiver.receive(packer.take()), undefined);
  const fresh = { ...base, qname: "fresh.example." };
  packer.add(fresh);
  const restarted = packer.take();
  assert.equal(restarted.stringBase, 0);
  assert.equal(restarted.table, gap.table + 1);
  assert.deepEqual(unpackQueryEvents(receiver.receive(restarted)), [fresh]);

  // Asked while nothing waits: at once.
  packer.restartTable();
  packer.add(base);
  const atOnce = packer.take();
  assert.deepEqual([atOnce.table, atOnce.stringBase], [gap.table + 2, 0]);
  assert.deepEqual(unpackQueryEvents(receiver.receive(atOnce)), [base]);
});

Deno.test("a packer's table starts over once it holds its most strings", () => {
  const packer = new QueryEventPacker(4, 20);
  const receiver = new QueryEventReceiver();
  const tables = new Set<number>();
  const received: QueryEvent[] = [];
  const events = Array.from(
    { length: 30 },
    (_, i) => ({ ...base, qname: `random-${i}.example.` }),
  );
  for (let i = 0; i < events.length; i += 3) {
    for (const e of events.slice(i, i + 3)) packer.add(e);
    const batch = packer.take();
    tables.add(batch.table);
    assert.ok(batch.stringBase + batch.strings.length <= 20 + 3 * 2);
    received.push(...unpackQueryEvents(receiver.receive(batch)));
  }
  assert.ok(tables.size >= 2, "random names do not grow one table forever");
  assert.deepEqual(received, events);
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

Deno.test("a packer reads each event's own strings, however its fields repeat or change", () => {
  const frozen = Object.freeze(["home/kids"]);
  const growing = ["lab/iot"];
  const events: QueryEvent[] = [
    { ...base, groups: frozen as string[] },
    { ...base, groups: frozen as string[] },
    { ...forwarded, groups: growing },
    { ...forwarded, groups: [] },
    { ...base, clientAddress: "192.0.2.1", groups: frozen as string[] },
  ];
  const packer = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  const received: QueryEvent[] = [];
  for (const e of events) packer.add(e);
  received.push(...unpackQueryEvents(receiver.receive(packer.take())));
  // The same array with another group in it: not taken for the last one.
  growing.push("lab/cameras");
  const later = [
    { ...forwarded, groups: growing },
    { ...forwarded, qname: `${"ads.example.".slice(0, 4)}example.` },
  ];
  for (const e of later) packer.add(e);
  received.push(...unpackQueryEvents(receiver.receive(packer.take())));
  assert.deepEqual(received, [
    ...events.slice(0, 2),
    { ...events[2]!, groups: ["lab/iot"] },
    ...events.slice(3),
    { ...forwarded, groups: ["lab/iot", "lab/cameras"] },
    { ...forwarded, qname: "ads.example." },
  ]);
});

Deno.test("a pack hint is trusted only for its own packer, table and strings", () => {
  const hint = new PackHint();
  const packer = new QueryEventPacker();
  const other = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  const otherReceiver = new QueryEventReceiver();
  const www = { ...forwarded, qname: "www.example.", answer: "A 192.0.2.1" };
  const events: QueryEvent[] = [];
  const add = (e: QueryEvent) => {
    packer.add(e, hint);
    events.push(e);
  };
  add(www);
  add({ ...www }); // hits the hint
  add({ ...www, qname: "mail.example." }); // another name: refreshed
  add({ ...www, answer: "A 192.0.2.2" }); // another answer: refreshed
  // Another packer, whose table holds other strings first: refreshed for
  // it, then again back here.
  other.add(base);
  other.add(www, hint);
  assert.deepEqual(
    unpackQueryEvents(otherReceiver.receive(other.take())),
    [base, www],
  );
  add(www);
  const received = unpackQueryEvents(receiver.receive(packer.take()));
  // A new table: the hint's indices belong to the old one.
  packer.restartTable();
  add(www);
  received.push(...unpackQueryEvents(receiver.receive(packer.take())));
  assert.deepEqual(received, events);
});

/** Arrays for `capacity` events, as the main thread hands them back. */
function returned(capacity: number) {
  return sent({
    count: capacity,
    strings: [],
    times: new Float64Array(capacity),
    ints: new Int32Array(capacity * EVENT_INTS),
  });
}

Deno.test("a packer fills arrays handed back to it instead of new ones", () => {
  const packer = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  const first = [base, forwarded, { ...base, qname: "other.example." }];
  for (const e of first) packer.add(e);
  const arrived = sent(packer.take());
  assert.deepEqual(unpackQueryEvents(receiver.receive(arrived)), first);
  const back = sent(arrived);
  packer.recycle(back.times, back.ints);

  const second = [forwarded, base];
  for (const e of second) packer.add(e);
  const batch = packer.take();
  assert.equal(batch.times.buffer, back.times.buffer, "the returned times");
  assert.equal(batch.ints.buffer, back.ints.buffer, "the returned ints");
  assert.equal(batch.times.length, 2, "as long as the batch, not the pair");
  assert.equal(batch.ints.length, 2 * EVENT_INTS);
  assert.ok(isPackedQueryEvents(batch));
  assert.deepEqual(unpackQueryEvents(receiver.receive(sent(batch))), second);

  // Handed out once: the next batch gets arrays of its own.
  packer.add(base);
  assert.notEqual(packer.take().times.buffer, back.times.buffer);
});

Deno.test("a packer leaves a returned pair too small for the batch, and fills it later", () => {
  const packer = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  const small = returned(2);
  packer.recycle(small.times, small.ints);
  for (let i = 0; i < 3; i++) packer.add({ ...base, clientPort: i });
  const big = packer.take();
  assert.notEqual(big.times.buffer, small.times.buffer);
  const ports = unpackQueryEvents(receiver.receive(sent(big)))
    .map((e) => e.clientPort);
  assert.deepEqual(ports, [0, 1, 2]);
  // An empty batch (drops to report) needs none either.
  const empty = packer.take();
  assert.notEqual(empty.times.buffer, small.times.buffer);
  receiver.receive(empty);
  packer.add(base);
  packer.add(forwarded);
  const fits = packer.take();
  assert.equal(fits.times.buffer, small.times.buffer);
  assert.deepEqual(unpackQueryEvents(receiver.receive(sent(fits))), [
    base,
    forwarded,
  ]);
});

Deno.test("a packer keeps the largest returned pairs, a few, and fills the smallest that fits", () => {
  const packer = new QueryEventPacker();
  const pairs = Array.from(
    { length: MAX_RECYCLED + 2 },
    (_, i) => returned(i + 1),
  );
  for (const pair of pairs) packer.recycle(pair.times, pair.ints);
  const used: number[] = [];
  for (let i = 0; i <= MAX_RECYCLED; i++) {
    packer.add(base);
    const buffer = packer.take().times.buffer;
    used.push(pairs.findIndex((pair) => pair.times.buffer === buffer));
  }
  // The two smallest went; -1: new arrays once the pool is empty.
  assert.deepEqual(used, [2, 3, 4, 5, -1]);
});

Deno.test("a packer refuses returned arrays that cannot be a batch's", () => {
  const packer = new QueryEventPacker();
  const one = new ArrayBuffer(64 * EVENT_INTS * 4);
  const shared = new SharedArrayBuffer(64 * EVENT_INTS * 4);
  const refused: [Float64Array, Int32Array][] = [
    [new Float64Array(one), new Int32Array(one)],
    [
      new Float64Array(shared),
      new Int32Array(new ArrayBuffer(shared.byteLength)),
    ],
    [new Float64Array(0), new Int32Array(0)],
    [new Float64Array(64), new Int32Array(1)],
  ];
  for (const [times, ints] of refused) packer.recycle(times, ints);
  packer.add(base);
  const batch = packer.take();
  for (const [times, ints] of refused) {
    assert.notEqual(batch.times.buffer, times.buffer);
    assert.notEqual(batch.ints.buffer, ints.buffer);
  }
  assert.deepEqual(unpackQueryEvents(sent(batch)), [base]);
});
