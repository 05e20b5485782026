import assert from "node:assert/strict";
import type { QueryEvent } from "./query_event.ts";
import {
  EVENT_FIELDS,
  type PackedQueryEvents,
  packQueryEvent,
  unpackQueryEvents,
} from "./query_event_pack.ts";

const base: QueryEvent = {
  time: 1_790_000_000_000,
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

Deno.test("packed query events survive a structured clone unchanged", () => {
  const { list: _l, rule: _r, ...forwarded } = base;
  const events: QueryEvent[] = [
    base,
    { ...forwarded, upstream: "resolver-1", groups: [], authenticData: true },
  ];
  const packed: PackedQueryEvents = [];
  for (const e of events) packQueryEvent(packed, e);
  assert.equal(packed.length, 2 * EVENT_FIELDS);
  assert.deepEqual(unpackQueryEvents(structuredClone(packed)), events);
});

Deno.test("a packed batch of the wrong length unpacks to nothing", () => {
  const packed: PackedQueryEvents = [];
  packQueryEvent(packed, base);
  assert.deepEqual(unpackQueryEvents(packed.slice(1)), []);
});
