import assert from "node:assert/strict";
import type { QueryEvent } from "../../pipeline/query_event.ts";
import { LiveFeed } from "../../querylog/live_feed.ts";
import { BusyBudget } from "../busy_budget.ts";
import {
  queryEvent,
  T0,
  tempQueryLog,
  testWriter,
} from "../../querylog/test_support.ts";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  apiFixture,
} from "../testdata/api_fixture.ts";
import { csvField } from "./querylog_export.ts";
import { queryLogRoutes, type QueryLogRoutesDeps } from "./querylog_routes.ts";
import { statsRoutes } from "./stats_routes.ts";

const NOW = T0 + 3_600_000;

/** 240 events over 20 minutes: clients, names, types, codes and statuses mixed. */
function traffic(): QueryEvent[] {
  const clients = ["192.0.2.1", "192.0.2.77", "2001:db8::5", "198.51.100.9"];
  const qnames = [
    "www.example.com.",
    "ads.tracker.test.",
    "mail.example.com.",
    "notexample.org.",
  ];
  return Array.from({ length: 240 }, (_, i) => {
    const blocked = i % 6 === 1;
    const e = queryEvent({
      // Pairs share a millisecond; ids do not follow time everywhere.
      time: T0 + Math.floor(((i * 37) % 240) / 2) * 10_000,
      node: i % 10 === 0 ? "node-b" : "node-a",
      clientAddress: clients[i % clients.length]!,
      qname: qnames[i % qnames.length]!,
      qtype: i % 3 === 0 ? 28 : 1,
      rcode: i % 8 === 0 ? 3 : i % 13 === 0 ? -1 : 0,
      status: blocked ? "blocked_list" : i % 5 === 0 ? "cached" : "forwarded",
      stage: blocked ? "blocking" : "upstream",
      upstream: i % 4 === 0 ? "default/9.9.9.9" : "default/1.1.1.1",
      ...(i === 5 && {
        qname: 'odd,"quoted"\nname.example.com.',
        answer: 'TXT "a, b"',
      }),
    });
    if (blocked) {
      delete e.upstream;
      Object.assign(e, { list: "ads", rule: "||tracker.test^" });
    }
    return e;
  });
}

/** The API with the query-log and stats routes over a log holding `events`. */
async function fixture(
  events: QueryEvent[] = traffic(),
  more: Partial<QueryLogRoutesDeps> = {},
) {
  const log = await tempQueryLog();
  const writer = testWriter(log.path, { batchSize: 50 });
  for (let i = 0; i < events.length; i += 60) {
    writer.enqueue(events.slice(i, i + 60));
    await writer.flush();
  }
  const feed = new LiveFeed();
  const f = await apiFixture({
    extraRoutes: () => [
      queryLogRoutes({
        queryLogPath: log.path,
        now: () => NOW,
        liveFeed: feed,
        ...more,
      }),
      statsRoutes({
        queryLogPath: log.path,
        now: () => NOW,
        nodeName: "node-a",
      }),
    ],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  return {
    f,
    admin,
    feed,
    writer,
    events,
    async [Symbol.asyncDispose]() {
      // The server keeps writing while the API reads: closed last.
      await writer.close();
      await f[Symbol.asyncDispose]();
      await log[Symbol.asyncDispose]();
    },
  };
}

/** Every page of a search, following `continue`. */
async function walk(client: ApiClient, query: string) {
  const ids: number[] = [];
  const items = [];
  let token: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const sep = query === "" ? "" : "&";
    const res = await client.request(
      "GET",
      `/api/v1/querylog?${query}${
        token === undefined ? "" : `${sep}continue=${encodeURIComponent(token)}`
      }`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const item of res.body.data.items) {
      ids.push(item.id);
      items.push(item);
    }
    token = res.body.data.continue;
    if (token === undefined) return { ids, items, pages: page + 1 };
  }
  throw new Error("paging did not end");
}

const newestFirst = (a: { time: string; id: number }, b: typeof a) =>
  Date.parse(b.time) - Date.parse(a.time) || b.id - a.id;

Deno.test("querylog search: readable events, newest first", async () => {
  await using t = await fixture();
  const res = await t.admin.request("GET", "/api/v1/querylog?limit=1000");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const items = res.body.data.items;
  assert.equal(items.length, 240);
  assert.equal(res.body.data.continue, undefined);
  assert.deepEqual([...items].sort(newestFirst), items);
  const blocked = items.find((e: { status: string }) =>
    e.status === "blocked_list"
  );
  assert.equal(blocked.list, "ads");
  assert.equal(blocked.rule, "||tracker.test^");
  assert.equal(blocked.upstream, undefined);
  const aaaa = items.find((e: { qtype: string }) => e.qtype === "AAAA");
  assert.equal(aaaa.qclass, "IN");
  assert.ok(items.some((e: { rcode: string }) => e.rcode === "NXDOMAIN"));
  assert.ok(
    items.some((e: { rcode: unknown }) => e.rcode === null),
    "-1: null",
  );
  const first = items.at(-1);
  assert.match(
    first.time,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/,
  );
  assert.equal(Date.parse(first.time), T0);
  assert.deepEqual(Object.keys(first).sort(), [
    "answer",
    "authenticData",
    "client",
    "clientPort",
    "dnssecOk",
    "durationUs",
    "groups",
    "id",
    "node",
    "qclass",
    "qname",
    "qtype",
    "rcode",
    "responseSize",
    "stage",
    "status",
    "time",
    "transport",
    "upstream",
  ]);
  assert.equal(first.client, "192.0.2.1");
  assert.equal(first.transport, "udp");
  assert.deepEqual(first.groups, ["default/default"]);
  assert.equal(typeof first.durationUs, "number");
});

Deno.test("querylog search: filters mean what the CLI's mean", async () => {
  await using t = await fixture();
  const count = async (query: string) =>
    (await walk(t.admin, query)).ids.length;
  const expect = (test: (e: QueryEvent) => boolean) =>
    t.events.filter(test).length;
  const cases: [string, (e: QueryEvent) => boolean][] = [
    ["client=192.0.2.77", (e) => e.clientAddress === "192.0.2.77"],
    ["client=::ffff:192.0.2.77", (e) => e.clientAddress === "192.0.2.77"],
    ["client=192.0.2.0/24", (e) => e.clientAddress.startsWith("192.0.2.")],
    ["domain=example", (e) => e.qname.includes("example")],
    ["domain=*.example.com", (e) => e.qname.endsWith(".example.com.")],
    ["status=blocked", (e) => e.status === "blocked_list"],
    ["status=cached,blocked_list", (e) => e.status !== "forwarded"],
    ["status=cached&status=blocked", (e) => e.status !== "forwarded"],
    ["type=AAAA", (e) => e.qtype === 28],
    ["type=aaaa,1", () => true],
    ["rcode=NXDOMAIN", (e) => e.rcode === 3],
    ["rcode=3,servfail", (e) => e.rcode === 3],
    ["node=node-b", (e) => e.node === "node-b"],
    ["upstream=default/9.9.9.9", (e) => e.upstream === "default/9.9.9.9"],
    [
      "upstream=default/9.9.9.9&upstream=default/1.1.1.1",
      (e) => e.upstream !== undefined,
    ],
    ["upstream=default/8.8.8.8", () => false],
    ["status=refused", () => false],
    [
      "client=2001:db8::5&type=AAAA&domain=www",
      (e) =>
        e.clientAddress === "2001:db8::5" && e.qtype === 28 &&
        e.qname.startsWith("www"),
    ],
    [
      `since=${new Date(T0 + 300_000).toISOString()}&until=${
        new Date(T0 + 600_000).toISOString()
      }`,
      (e) => e.time >= T0 + 300_000 && e.time < T0 + 600_000,
    ],
    ["since=50m", (e) => e.time >= NOW - 50 * 60_000],
    // An offset's "+" left unencoded arrives as a space, and still counts.
    ["since=2030-01-01T05:40:00+05:30", (e) => e.time >= T0 + 600_000],
  ];
  for (const [query, test] of cases) {
    assert.equal(await count(query), expect(test), query);
  }
});

Deno.test("querylog search: continue walks every event exactly once", async () => {
  await using t = await fixture();
  const all = await walk(t.admin, "limit=1000");
  for (const query of ["limit=7", "limit=1", "limit=13&node=node-a"]) {
    const paged = await walk(t.admin, query);
    const expected = query.includes("node=")
      ? all.items.filter((e) => e.node === "node-a").map((e) => e.id)
      : all.ids;
    assert.deepEqual(paged.ids, expected, query);
    assert.equal(new Set(paged.ids).size, paged.ids.length, "no repeats");
    assert.ok(paged.pages > 1);
  }
  // The default page is 100.
  const first = await t.admin.request("GET", "/api/v1/querylog");
  assert.equal(first.body.data.items.length, 100);
  assert.equal(typeof first.body.data.continue, "string");
});

Deno.test("querylog: bad parameters are 400 naming them", async () => {
  await using t = await fixture();
  const cases: [string, string][] = [
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=ten", "limit"],
    ["since=yesterday", "since"],
    ["until=2030-02-30", "until"],
    ["since=1h&until=2h", "since"],
    ["status=nope", "status"],
    ["type=BOGUS", "type"],
    ["rcode=NOPE", "rcode"],
    ["client=somebody", "client"],
    ["client=", "client"],
    ["continue=xyz", "continue"],
    ["clinet=192.0.2.1", "clinet"],
    ["limit=5&limit=6", "limit"],
  ];
  for (const [query, parameter] of cases) {
    const res = await t.admin.request("GET", `/api/v1/querylog?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.error.key, "bad_request", query);
    assert.equal(res.body.error.parameter, parameter, query);
    assert.match(res.body.error.message, new RegExp(`"${parameter}"`), query);
  }
  const format = await t.admin.request(
    "GET",
    "/api/v1/querylog/export?format=xml",
  );
  assert.equal(format.status, 400);
  assert.equal(format.body.error.parameter, "format");
  const tail = await t.admin.request("GET", "/api/v1/querylog/tail?since=1h");
  assert.equal(tail.status, 400);
  assert.equal(tail.body.error.parameter, "since");
});

Deno.test("querylog: a viewer may not read it (403), the stats without clients yes", async () => {
  await using t = await fixture();
  const made = await t.admin.request("POST", "/api/v1/tokens", {
    scopes: [{ role: "viewer" }],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const viewer = t.f.client();
  viewer.token = made.body.data.token;
  for (
    const [path, verb] of [
      ["/api/v1/querylog", "list"],
      ["/api/v1/querylog/export", "export"],
      ["/api/v1/querylog/tail", "tail"],
      ["/api/v1/stats/top-clients", "get"],
      ["/api/v1/stats/clients/192.0.2.1", "get"],
    ]
  ) {
    const res = await viewer.request("GET", path!);
    assert.equal(res.status, 403, path);
    assert.equal(res.body.error.key, "forbidden");
    assert.deepEqual(res.body.error.missing, {
      resource: "querylog",
      verb,
      scope: "cluster",
    });
  }
  const stats = await viewer.request("GET", "/api/v1/stats/summary");
  assert.equal(stats.status, 200, JSON.stringify(stats.body));
  assert.equal(
    (await t.f.client().request("GET", "/api/v1/querylog")).status,
    401,
  );
});

/** RFC 4180 records of `text` (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += ch;
  }
  assert.equal(field, "", "the last record ends with CRLF");
  assert.equal(row.length, 0);
  return rows;
}

Deno.test("querylog export: CSV with a header and RFC 4180 quoting, as an attachment", async () => {
  await using t = await fixture();
  const res = await t.f.api.app.request(
    "/api/v1/querylog/export?format=csv&domain=example.com",
    { headers: { cookie: t.admin.cookie! } },
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/csv/);
  assert.match(
    res.headers.get("content-disposition")!,
    /^attachment; filename="querylog-20300101T010000Z\.csv"$/,
  );
  const rows = parseCsv(await res.text());
  const [header, ...records] = rows;
  assert.deepEqual(header!.slice(0, 4), ["id", "time", "node", "client"]);
  const search = await walk(t.admin, "domain=example.com&limit=1000");
  assert.equal(records.length, search.items.length);
  const column = (name: string) => header!.indexOf(name);
  assert.deepEqual(records.map((r) => Number(r[column("id")])), search.ids);
  const odd = records.find((r) => r[column("qname")]!.startsWith("odd"))!;
  assert.equal(odd[column("qname")], 'odd,"quoted"\nname.example.com.');
  assert.equal(odd[column("answer")], 'TXT "a, b"');
  for (const r of records) assert.equal(r.length, header!.length);
  assert.equal(csvField('a"b'), '"a""b"');
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField(undefined), "");
});

Deno.test("querylog export: NDJSON one event per line, bounded by limit", async () => {
  await using t = await fixture();
  const get = async (query: string) => {
    const res = await t.f.api.app.request(`/api/v1/querylog/export?${query}`, {
      headers: { cookie: t.admin.cookie! },
    });
    assert.equal(res.status, 200);
    return { res, text: await res.text() };
  };
  const all = await get("format=ndjson");
  assert.match(all.res.headers.get("content-type")!, /^application\/x-ndjson/);
  assert.match(all.res.headers.get("content-disposition")!, /\.ndjson"$/);
  assert.ok(all.text.endsWith("\n"));
  const lines = all.text.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 240);
  const search = await walk(t.admin, "limit=1000");
  assert.deepEqual(lines, search.items);
  const some = await get("format=ndjson&limit=5&status=blocked");
  const five = some.text.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(five.length, 5);
  assert.ok(five.every((e) => e.status === "blocked_list"));
  // No log yet: an empty export, not an error.
  await using empty = await tempQueryLog();
  const f = await apiFixture({
    extraRoutes: () => [
      queryLogRoutes({ queryLogPath: empty.path, now: () => NOW }),
    ],
  });
  await using _f = f;
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const none = await f.api.app.request("/api/v1/querylog/export", {
    headers: { cookie: admin.cookie! },
  });
  assert.equal(none.status, 200);
  assert.equal((await none.text()).split("\r\n")[1], "");
  const nothing = await admin.request("GET", "/api/v1/querylog");
  assert.deepEqual(nothing.body.data, { items: [] });
});

/** Reads SSE frames off `body` until `until` says stop. */
async function readFrames(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  frames: string[],
  until: (frames: string[]) => boolean,
) {
  const decoder = new TextDecoder();
  let buffered = "";
  while (!until(frames)) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      frames.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
    }
  }
}

/** `event:`, `id:` and `data:` of a frame; comments as `comment`. */
function parseFrame(frame: string) {
  const out: Record<string, string> = {};
  for (const line of frame.split("\n")) {
    if (line.startsWith(":")) out.comment = line.slice(1).trim();
    const m = /^(event|id|data|retry): ?(.*)$/.exec(line);
    if (m) {
      out[m[1]!] = out[m[1]!] === undefined ? m[2]! : `${out[m[1]!]}\n${m[2]}`;
    }
  }
  return out;
}

Deno.test("querylog tail: Server-Sent Events of new matching queries, pings, drops, and the end", async () => {
  await using t = await fixture([], { tailPingMs: 30, tailBufferSize: 2 });
  const stop = new AbortController();
  const res = await t.f.api.app.request(
    "/api/v1/querylog/tail?domain=*.example.com&type=A",
    { headers: { cookie: t.admin.cookie! }, signal: stop.signal },
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
  const reader = res.body!.getReader();
  const frames: string[] = [];
  await readFrames(reader, frames, (f) => f.length >= 1);
  assert.equal(parseFrame(frames[0]!).retry, "3000");
  assert.equal(t.feed.subscribers, 1);

  // A ping while nothing happens.
  await readFrames(
    reader,
    frames,
    (f) => f.some((x) => parseFrame(x).comment === "ping"),
  );

  // Published all at once: the buffer holds two; three are lost, and said so.
  t.feed.publish([
    queryEvent({ qname: "skip.example.org." }),
    ...["a", "b", "c", "d", "e"].map((n) =>
      queryEvent({ qname: `${n}.example.com.`, time: T0 + 1 })
    ),
    queryEvent({ qname: "aaaa.example.com.", qtype: 28 }),
  ]);
  const seen = () =>
    frames.map(parseFrame).filter((f) => f.event === "query").length;
  await readFrames(reader, frames, () => seen() >= 2);
  const parsed = frames.map(parseFrame).filter((f) => f.event !== undefined);
  assert.deepEqual(parsed.map((f) => f.event), ["dropped", "query", "query"]);
  assert.deepEqual(JSON.parse(parsed[0]!.data!), { dropped: 3 });
  const [d, e] = [JSON.parse(parsed[1]!.data!), JSON.parse(parsed[2]!.data!)];
  assert.deepEqual([d.qname, e.qname], ["d.example.com.", "e.example.com."]);
  assert.equal(d.qtype, "A");
  assert.equal(Date.parse(d.time), T0 + 1);
  assert.equal(d.id, undefined, "a live event has no log id yet");
  assert.ok(Number(parsed[2]!.id) > Number(parsed[1]!.id));

  // The client goes away: the follower is gone.
  stop.abort();
  await reader.cancel().catch(() => {});
  for (let i = 0; i < 50 && t.feed.subscribers > 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(t.feed.subscribers, 0);
});

Deno.test("querylog tail: past the API's CPU share it waits, keeping the newest events", async () => {
  const clock = { t: 0 };
  const wake: (() => void)[] = [];
  const budget = new BusyBudget({
    percent: 10,
    burstMs: 0,
    now: () => clock.t,
    sleep: () => new Promise((resolve) => wake.push(resolve)),
  });
  await using t = await fixture([], { tailBufferSize: 2, budget });
  const res = await t.f.api.app.request("/api/v1/querylog/tail", {
    headers: { cookie: t.admin.cookie! },
  });
  const reader = res.body!.getReader();
  const frames: string[] = [];
  const reading = readFrames(reader, frames, () => false);
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(done(), `frames: ${JSON.stringify(frames)}`);
  };
  await until(() => frames.length >= 1);
  budget.spend(100); // 1 s to repay at 10 %
  t.feed.publish([queryEvent({ qname: "first.example." })]);
  await until(() => frames.length >= 2);
  assert.equal(
    JSON.parse(parseFrame(frames[1]!).data!).qname,
    "first.example.",
  );
  // After its 100 ms of gathering the tail asks the share, and waits.
  await until(() => wake.length === 1);
  t.feed.publish(
    ["a", "b", "c", "d"].map((n) => queryEvent({ qname: `${n}.example.` })),
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(frames.length, 2, "no event is sent while the share is spent");
  clock.t += 2000; // the debt, and the time formatting took
  wake.shift()!();
  await until(() => frames.length >= 5);
  const sent = frames.slice(2).map(parseFrame);
  assert.deepEqual(sent.map((f) => f.event), ["dropped", "query", "query"]);
  assert.deepEqual(JSON.parse(sent[0]!.data!), { dropped: 2 });
  assert.deepEqual(sent.slice(1).map((f) => JSON.parse(f.data!).qname), [
    "c.example.",
    "d.example.",
  ]);
  await reader.cancel();
  await reading;
});

Deno.test("querylog tail: over a real socket, a client that goes away stops its follower", async () => {
  await using t = await fixture([]);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    t.f.api.app.fetch,
  );
  try {
    const stop = new AbortController();
    const res = await fetch(
      `http://127.0.0.1:${server.addr.port}/api/v1/querylog/tail?status=blocked`,
      { headers: { cookie: t.admin.cookie! }, signal: stop.signal },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
    const reader = res.body!.getReader();
    const frames: string[] = [];
    await readFrames(reader, frames, (f) => f.length >= 1);
    t.feed.publish([
      queryEvent({ qname: "fine.example." }),
      queryEvent({ qname: "ads.example.", status: "blocked_list" }),
    ]);
    await readFrames(reader, frames, (f) => f.length >= 2);
    const query = parseFrame(frames[1]!);
    assert.equal(query.event, "query");
    assert.equal(JSON.parse(query.data!).qname, "ads.example.");
    stop.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && t.feed.subscribers > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(t.feed.subscribers, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("querylog tail: ends with event: end after tailMaxMs; 404 without a feed; 429 when full", async () => {
  await using t = await fixture([], { tailMaxMs: 40, tailPingMs: 1000 });
  const res = await t.f.api.app.request("/api/v1/querylog/tail", {
    headers: { cookie: t.admin.cookie! },
  });
  const text = await res.text(); // ends by itself
  const events = text.split("\n\n").map(parseFrame).filter((f) => f.event);
  assert.deepEqual(events.map((f) => f.event), ["end"]);
  assert.equal(t.feed.subscribers, 0);

  // Full: 429 with Retry-After.
  const subs = Array.from({ length: 32 }, () => t.feed.subscribe());
  const full = await t.admin.request("GET", "/api/v1/querylog/tail");
  assert.equal(full.status, 429);
  assert.equal(full.body.error.key, "rate_limited");
  assert.equal(full.headers.get("retry-after"), "10");
  for (const s of subs) s.close();

  await using log = await tempQueryLog();
  const f = await apiFixture({
    extraRoutes: () => [queryLogRoutes({
      queryLogPath: log.path,
      now: () => NOW,
    })],
  });
  await using _f = f;
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const none = await admin.request("GET", "/api/v1/querylog/tail");
  assert.equal(none.status, 404);
  assert.match(none.body.error.hint, /querylog\.enabled/);
});

Deno.test("querylog routes are in the OpenAPI document, which stays valid", async () => {
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  await using t = await fixture([]);
  const doc = await t.admin.request("GET", "/api/v1/openapi.json");
  for (
    const path of [
      "/api/v1/querylog",
      "/api/v1/querylog/export",
      "/api/v1/querylog/tail",
      "/api/v1/stats",
      "/api/v1/stats/summary",
      "/api/v1/stats/over-time",
      "/api/v1/stats/top-domains",
      "/api/v1/stats/top-blocked",
      "/api/v1/stats/upstreams",
      "/api/v1/stats/top-clients",
      "/api/v1/stats/clients/{address}",
    ]
  ) {
    assert.ok(doc.body.paths[path]?.get, path);
  }
  const params = doc.body.paths["/api/v1/querylog"].get.parameters.map((
    p: { name: string },
  ) => p.name);
  assert.deepEqual(params.sort(), [
    "client",
    "continue",
    "domain",
    "limit",
    "node",
    "rcode",
    "since",
    "status",
    "type",
    "until",
    "upstream",
  ]);
  const result = await new Validator().validate(doc.body);
  assert.equal(result.valid, true, JSON.stringify(result).slice(0, 2000));
});
