import assert from "node:assert/strict";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { packQueryEvents } from "../pipeline/query_event_pack.ts";
import { createEventFilter } from "./event_filter.ts";
import {
  LiveFeed,
  liveFilter,
  type LiveFilters,
  TooManySubscribersError,
} from "./live_feed.ts";
import { searchEvents } from "./search.ts";
import {
  queryEvent,
  querylogSettings,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";

const names = (events: { event: QueryEvent }[]) =>
  events.map((e) => e.event.qname);

Deno.test("live feed: nothing is kept without followers, and followers get what matches, numbered", async () => {
  const feed = new LiveFeed();
  assert.equal(feed.listening, false);
  feed.publish([queryEvent({ qname: "before." })]);
  const sub = feed.subscribe({ filter: (e) => e.qname !== "skip." });
  assert.equal(feed.listening, true);
  feed.publish([
    queryEvent({ qname: "a." }),
    queryEvent({ qname: "skip." }),
    queryEvent({ qname: "b." }),
  ]);
  const batch = await sub.next(1000);
  assert.deepEqual(names(batch.events), ["a.", "b."]);
  assert.equal(batch.dropped, 0);
  const [first, second] = batch.events;
  assert.ok(first!.seq < second!.seq, "numbers rise");
  sub.close();
  assert.equal(feed.listening, false);
  sub.close(); // idempotent
});

Deno.test("live feed: a slow follower loses its oldest events and is told how many", async () => {
  const feed = new LiveFeed();
  const sub = feed.subscribe({ bufferSize: 3 });
  feed.publish(
    Array.from({ length: 10 }, (_, i) => queryEvent({ qname: `n${i}.` })),
  );
  const batch = await sub.next(1000);
  assert.deepEqual(names(batch.events), ["n7.", "n8.", "n9."]);
  assert.equal(batch.dropped, 7);
  // The count is told once.
  feed.publish([queryEvent({ qname: "n10." })]);
  const after = await sub.next(1000);
  assert.deepEqual(names(after.events), ["n10."]);
  assert.equal(after.dropped, 0);
  sub.close();
});

Deno.test("live feed: next waits for events, and ends on a timeout or an abort", async () => {
  const feed = new LiveFeed();
  const sub = feed.subscribe();
  const waiting = sub.next(10_000);
  setTimeout(() => feed.publish([queryEvent({ qname: "late." })]), 5);
  assert.deepEqual(names((await waiting).events), ["late."]);
  const started = performance.now();
  const empty = await sub.next(20);
  assert.deepEqual(empty, { events: [], dropped: 0 });
  assert.ok(performance.now() - started >= 15);
  const stop = new AbortController();
  const aborted = sub.next(10_000, stop.signal);
  stop.abort();
  assert.deepEqual(await aborted, { events: [], dropped: 0 });
  sub.close();
});

Deno.test("live feed: followers are limited", () => {
  const feed = new LiveFeed({ maxSubscribers: 2 });
  const a = feed.subscribe();
  const b = feed.subscribe();
  assert.throws(() => feed.subscribe(), TooManySubscribersError);
  a.close();
  const c = feed.subscribe();
  b.close();
  c.close();
  assert.equal(feed.subscribers, 0);
});

Deno.test("live feed: packed batches are published as the log stores them", async () => {
  const events = [
    queryEvent({ qname: "www.example.com.", clientPort: 4000 }),
    queryEvent({
      qname: "ads.tracker.test.",
      list: "ads",
      rule: "||tracker.test^",
    }),
    queryEvent({ qname: "printer.lan.", groups: ["home/kids"] }),
    queryEvent({ qname: "last.example.com." }),
  ];
  const batch = packQueryEvents(events);
  const feed = new LiveFeed();
  const sub = feed.subscribe();

  // No exclusions, full privacy: as they came; [from, to) only.
  feed.publishPacked(batch, 0, 3, createEventFilter(querylogSettings()));
  const plain = await sub.next(1000);
  assert.deepEqual(plain.events.map((e) => e.event), events.slice(0, 3));

  // Exclusions leave events out; the privacy mode hides what it hides.
  const hiding = createEventFilter(querylogSettings({
    privacy: "anonymous",
    exclude: { domains: ["lan"] },
  }));
  feed.publishPacked(batch, 0, 4, hiding);
  const hidden = (await sub.next(1000)).events.map((e) => e.event);
  assert.equal(hidden.length, 3, "printer.lan. is excluded");
  for (const e of hidden) {
    assert.equal(e.clientAddress, "hidden");
    assert.equal(e.clientPort, 0);
    assert.equal(e.qname, "hidden.");
    assert.equal(e.answer, "");
    assert.equal(e.rule, undefined);
    assert.deepEqual(e.groups, []);
  }
  assert.equal(hidden[1]!.list, "ads", "the list name stays");

  // Privacy "none" stores no events: nothing to follow.
  feed.publishPacked(
    batch,
    0,
    4,
    createEventFilter(querylogSettings({ privacy: "none" })),
  );
  assert.deepEqual(await sub.next(10), { events: [], dropped: 0 });
  sub.close();
});

Deno.test("live feed: publishPacked decodes a big batch only as far back as followers have room for", async () => {
  const events = Array.from(
    { length: 10 },
    (_, i) =>
      queryEvent({
        qname: i === 1 ? "printer.lan." : `n${i}.`,
        qtype: i === 2 ? 15 : 1,
      }),
  );
  const batch = packQueryEvents(events);
  // Decoding an event reads its time; counting it does not.
  const decoded = new Set<number>();
  batch.times = new Proxy(batch.times, {
    get(target, key) {
      if (typeof key === "string" && /^\d+$/.test(key)) {
        decoded.add(Number(key));
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const plain = createEventFilter(
    querylogSettings({ exclude: { domains: ["lan"] } }),
  );
  const feed = new LiveFeed();
  const small = feed.subscribe({ bufferSize: 3 });
  feed.publishPacked(batch, 0, 10, plain);
  const newest = await small.next(1000);
  assert.deepEqual(names(newest.events), ["n7.", "n8.", "n9."]);
  assert.equal(newest.dropped, 6, "printer.lan. is not logged: not lost");
  assert.deepEqual(
    [...decoded].sort(),
    [7, 8, 9],
    "the older 7 are counted, not decoded",
  );
  const [a, b, c] = newest.events.map((e) => e.seq);
  assert.ok(a! < b! && b! < c!, "numbers rise, oldest first");

  // A filtered follower: every event is looked at, and only the matching
  // ones it had no room for count as dropped.
  decoded.clear();
  const mx = feed.subscribe({ filter: (e) => e.qtype === 15, bufferSize: 3 });
  feed.publishPacked(batch, 0, 10, plain);
  assert.equal(decoded.size, 10);
  const found = await mx.next(1000);
  assert.deepEqual(names(found.events), ["n2."]);
  assert.equal(found.dropped, 0);
  assert.equal((await small.next(1000)).dropped, 6);
  small.close();
  mx.close();
});

Deno.test("live feed: publishPacked decodes nothing without followers", () => {
  const feed = new LiveFeed();
  let read = false;
  const batch = packQueryEvents([queryEvent()]);
  // A batch whose strings cannot be read: touching them throws.
  Object.defineProperty(batch, "strings", {
    get() {
      read = true;
      throw new Error("read");
    },
  });
  feed.publishPacked(batch, 0, 1, createEventFilter(querylogSettings()));
  assert.equal(read, false);
  const sub = feed.subscribe();
  // With a follower it reads, and a bad batch does not throw.
  feed.publishPacked(batch, 0, 1, createEventFilter(querylogSettings()));
  assert.equal(read, true);
  sub.close();
});

/** Events for comparing live filters with the search's. */
function mixed(): QueryEvent[] {
  const clients = ["192.0.2.1", "192.0.2.200", "2001:db8::7", "198.51.100.3"];
  const qnames = [
    "www.example.com.",
    "example.com.",
    "ads.doubleclick.net.",
    "notexample.com.",
    "a\\.example.com.", // one label "a.example" under com.
    "deep.sub.example.com.",
  ];
  return Array.from({ length: 96 }, (_, i) => {
    const blocked = i % 5 === 0;
    const e = queryEvent({
      time: T0 + i * 1000,
      node: i % 7 === 0 ? "node-b" : "node-a",
      clientAddress: clients[i % clients.length]!,
      qname: qnames[i % qnames.length]!,
      qtype: [1, 28, 65][i % 3]!,
      rcode: blocked ? 3 : i % 11 === 0 ? 2 : 0,
      status: blocked ? "blocked_list" : i % 4 === 0 ? "cached" : "forwarded",
      upstream: i % 3 === 0 ? "default/9.9.9.9" : "default/1.1.1.1",
    });
    if (blocked) delete e.upstream;
    return e;
  });
}

Deno.test("live feed: liveFilter matches what a search with the same filters finds", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  const events = mixed();
  writer.enqueue(events);
  await writer.flush();
  const cases: LiveFilters[] = [
    { client: "192.0.2.1" },
    { client: "::ffff:192.0.2.1" },
    { client: "192.0.2.0/24" },
    { client: "2001:db8::/32" },
    { domain: "example" },
    { domain: "EXAMPLE.com" },
    { domain: "*.example.com" },
    { domain: ".example.com." },
    { domain: "doubleclick" },
    { status: "blocked" },
    { status: "cached,forwarded" },
    { qtypes: [28, 65] },
    { rcodes: [3] },
    { upstream: "default/9.9.9.9" },
    { upstream: "default/1.1.1.1, default/9.9.9.9", status: "cached" },
    { client: "192.0.2.0/24", domain: "*.example.com", status: "forwarded" },
  ];
  const key = (e: QueryEvent) => `${e.time} ${e.qname} ${e.clientAddress}`;
  for (const filters of cases) {
    const found = searchEvents(writer.db, { ...filters, limit: 1000 }).events
      .map(key).sort();
    const test = liveFilter(filters)!;
    const live = events.filter(test).map(key).sort();
    assert.deepEqual(live, found, JSON.stringify(filters));
    assert.ok(found.length > 0, `${JSON.stringify(filters)} finds something`);
  }
  const nodeB = liveFilter({ node: "node-b" })!;
  assert.equal(events.filter(nodeB).length, 14);
  assert.equal(liveFilter({}), undefined);
  assert.throws(() => liveFilter({ client: "nonsense" }), /CIDR/);
});
