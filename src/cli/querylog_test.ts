import assert from "node:assert/strict";
import { join } from "node:path";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { DatabaseSync } from "node:sqlite";
import { QueryEventPacker } from "../pipeline/query_event_pack.ts";
import { BatchStore } from "../querylog/batch_store.ts";
import { openQueryLogDb, QUERYLOG_DB_FILE } from "../querylog/db.ts";
import { createEventFilter } from "../querylog/event_filter.ts";
import type { LoggedEvent } from "../querylog/event_rows.ts";
import {
  queryEvent,
  queryLogDataDir,
  querylogSettings,
  T0,
  testWriter,
} from "../querylog/test_support.ts";
import { bufferIO, UsageError } from "./command.ts";
import { formatLogTime } from "./log_time.ts";
import { makeQuerylogCommand, querylogCommand } from "./querylog.ts";

const SAMPLE: QueryEvent[] = [
  queryEvent({
    time: T0 + 1000,
    qname: "www.example.com.",
    durationUs: 12_000,
  }),
  (() => {
    const e = queryEvent({
      time: T0 + 2000,
      qname: "ads.tracker.example.",
      qtype: 28,
      status: "blocked_list",
      stage: "blocking",
      list: "ads",
      rule: "||tracker.example^",
      clientAddress: "192.0.2.99",
      durationUs: 85,
    });
    delete e.upstream;
    return e;
  })(),
  (() => {
    const e = queryEvent({
      time: T0 + 3000,
      qname: "cdn.example.net.",
      status: "cached",
      stage: "cache",
      durationUs: 40,
    });
    delete e.upstream;
    return e;
  })(),
];

/** A data directory with SAMPLE in its query log, removed on dispose. */
const dataDir = (events = SAMPLE) =>
  queryLogDataDir(events, "kudurru-cli-querylog-");

async function run(args: string[], now = T0 + 60_000) {
  const b = bufferIO();
  const code = await makeQuerylogCommand({ now: () => now }).run(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

Deno.test("kudurru querylog prints the newest queries as a table", async () => {
  await using data = await dataDir();
  const got = await run(["--data-dir", data.dir]);
  assert.equal(got.code, 0);
  const lines = got.stdout.trimEnd().split("\n");
  assert.match(
    lines[0]!,
    /^TIME\s+CLIENT\s+QNAME\s+TYPE\s+RCODE\s+STATUS\s+ANSWERED BY\s+DURATION$/,
  );
  assert.equal(lines.length, 4);
  assert.ok(lines[1]!.startsWith(formatLogTime(T0 + 3000)));
  assert.match(
    lines[1]!,
    /cdn\.example\.net\.\s+A\s+NOERROR\s+cached\s+cache\s+40µs/,
  );
  assert.match(
    lines[2]!,
    /192\.0\.2\.99\s+ads\.tracker\.example\.\s+AAAA\s+NOERROR\s+blocked_list\s+ads: \|\|tracker\.example\^\s+85µs/,
  );
  assert.match(
    lines[3]!,
    /www\.example\.com\.\s+A\s+NOERROR\s+forwarded\s+default\/1\.1\.1\.1\s+12\.0ms/,
  );
  assert.equal(got.stderr, "");
});

Deno.test("kudurru querylog filters, pages and prints JSON", async () => {
  await using data = await dataDir();
  const blocked = await run([
    "--data-dir",
    data.dir,
    "--status",
    "blocked",
    "-o",
    "json",
  ]);
  const page = JSON.parse(blocked.stdout) as {
    events: LoggedEvent[];
    nextCursor: string | null;
  };
  assert.deepEqual(page.events.map((e) => e.qname), ["ads.tracker.example."]);
  assert.equal(page.nextCursor, null);

  const upstream = await run([
    "--data-dir",
    data.dir,
    "--upstream",
    "default/1.1.1.1",
    "-o",
    "json",
  ]);
  const viaUpstream = JSON.parse(upstream.stdout).events as LoggedEvent[];
  assert.ok(viaUpstream.length > 0);
  assert.ok(viaUpstream.every((e) => e.upstream === "default/1.1.1.1"));

  const first = await run(["--data-dir", data.dir, "--limit", "2"]);
  const more = /More: add --before (\S+)/.exec(first.stderr);
  assert.ok(more, first.stderr);
  const rest = await run(["--data-dir", data.dir, "--before", more[1]!]);
  assert.match(rest.stdout, /www\.example\.com\./);
  assert.doesNotMatch(rest.stdout, /cdn\.example\.net\./);

  const recent = await run([
    "--data-dir",
    data.dir,
    "--since",
    "57s",
    "-o",
    "json",
  ]);
  assert.deepEqual(
    (JSON.parse(recent.stdout).events as LoggedEvent[]).map((e) => e.time),
    [T0 + 3000],
  );
  const byDomain = await run([
    "--data-dir",
    data.dir,
    "--domain",
    "*.example.com",
  ]);
  assert.match(byDomain.stdout, /www\.example\.com\./);
  assert.doesNotMatch(byDomain.stdout, /tracker/);
  const none = await run(["--data-dir", data.dir, "--client", "203.0.113.1"]);
  assert.equal(none.stdout, "No queries found.\n");
  const mapped = await run([
    "--data-dir",
    data.dir,
    "--client",
    "::ffff:192.0.2.99",
    "-o",
    "json",
  ]);
  assert.ok(
    (JSON.parse(mapped.stdout).events as LoggedEvent[]).length > 0,
    "an IPv4-mapped address finds the IPv4 client",
  );
});

Deno.test("kudurru querylog refuses bad flags with usage errors", async (t) => {
  await using data = await dataDir();
  const cases: [string, string[], RegExp][] = [
    ["unknown status", ["--status", "nope"], /unknown status "nope"/],
    ["limit", ["--limit", "0"], /--limit must be a positive whole number/],
    ["limit too big", ["--limit", "2000"], /--limit is at most 1000/],
    ["output", ["-o", "yaml"], /-o must be table, json, csv or ndjson/],
    ["since", ["--since", "yesterday"], /--since takes a duration/],
    ["cursor", ["--before", "zzz"], /Invalid query-log cursor/],
    ["positional", ["extra"], /unexpected argument "extra"/],
    // Not an address, a prefix too long, addresses cut short.
    ...["not-an-ip", "10.0.0.0/99", "192.168.1", "10/8"].map((
      client,
    ): [string, string[], RegExp] => [
      `client ${client}`,
      ["--client", client],
      /--client takes an address or a CIDR prefix/,
    ]),
    ["empty status", ["--status", ""], /--status needs a value/],
    ["type", ["--type", "AAAAA"], /--type takes a type such as AAAA or 65/],
    ["type number", ["--type", "70000"], /--type takes a type/],
    ["rcode", ["--rcode", "NXDOMIAN"], /--rcode takes a response code/],
    ["empty rcode", ["--rcode", ","], /--rcode needs a value/],
    [
      "window backwards",
      ["--since", "10d", "--until", "20d"],
      /--since \(10d\) is not before --until \(20d\)/,
    ],
  ];
  for (const [name, args, message] of cases) {
    await t.step(name, async () => {
      await assert.rejects(
        () => run(["--data-dir", data.dir, ...args]),
        (err: unknown) =>
          err instanceof UsageError && message.test(err.message),
      );
    });
  }
});

Deno.test("kudurru querylog says when there is no query log yet", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      () => querylogCommand.run(["--data-dir", dir], bufferIO().io),
      /No query log at ".*querylog\.db" yet/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru querylog -f prints queries as they are written until stopped", async (t) => {
  for (const format of ["table", "json"]) {
    await t.step(format, async () => {
      await using data = await dataDir();
      const stop = new AbortController();
      const b = bufferIO();
      const running = makeQuerylogCommand({ signal: stop.signal, pollMs: 10 })
        .run([
          "--data-dir",
          data.dir,
          "-f",
          "-o",
          format,
          "--status",
          "forwarded",
        ], b.io);
      const writer = testWriter(join(data.dir, QUERYLOG_DB_FILE));
      try {
        writer.enqueue([
          queryEvent({ time: T0 + 9000, qname: "new.example.org." }),
          queryEvent({
            time: T0 + 9001,
            qname: "hidden.example.org.",
            status: "cached",
          }),
        ]);
        await writer.flush();
        const deadline = Date.now() + 5000;
        while (
          !b.stdout().includes("new.example.org.") && Date.now() < deadline
        ) {
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        await writer.close();
        stop.abort();
      }
      assert.equal(await running, 0);
      const out = b.stdout();
      // The existing forwarded query first, then the new one; never the cached one.
      assert.ok(
        out.indexOf("www.example.com.") < out.indexOf("new.example.org."),
        out,
      );
      assert.doesNotMatch(out, /hidden\.example\.org/);
      if (format === "json") {
        const lines = out.trimEnd().split("\n").map((l) =>
          JSON.parse(l) as LoggedEvent
        );
        assert.deepEqual(lines.map((e) => e.qname), [
          "www.example.com.",
          "new.example.org.",
        ]);
      }
    });
  }
});

Deno.test("kudurru querylog -f heads the first rows it follows when nothing matched before", async () => {
  await using data = await dataDir();
  const stop = new AbortController();
  const b = bufferIO();
  const running = makeQuerylogCommand({ signal: stop.signal, pollMs: 10 })
    .run(["--data-dir", data.dir, "-f", "--domain", "later.example"], b.io);
  // The first page is read once the command has looked for a context.
  for (let i = 0; i < 500 && b.stdout() === ""; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const writer = testWriter(join(data.dir, QUERYLOG_DB_FILE));
  try {
    writer.enqueue([queryEvent({ time: T0 + 9000, qname: "later.example." })]);
    await writer.flush();
    const deadline = Date.now() + 5000;
    while (!b.stdout().includes("later.example.") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await writer.close();
    stop.abort();
  }
  assert.equal(await running, 0);
  const lines = b.stdout().trimEnd().split("\n");
  assert.equal(lines[0], "No queries found.");
  assert.match(lines[1]!, /^TIME\s+CLIENT/, "the header before the first row");
  assert.match(lines[2]!, /later\.example\./);
});

Deno.test("kudurru querylog -f refuses --until and --before", async () => {
  await using data = await dataDir();
  for (const extra of [["--until", "1h"], ["--before", "x"]]) {
    await assert.rejects(
      () =>
        querylogCommand.run(
          ["--data-dir", data.dir, "-f", ...extra],
          bufferIO().io,
        ),
      /-f follows new queries; it cannot be combined with --until or --before/,
    );
  }
});

/**
 * `db` with `afterNewestId` run once, right after the first read of the
 * newest event id: a query written between that read and the next.
 */
function interceptNewestId(
  db: DatabaseSync,
  afterNewestId: () => void,
): DatabaseSync {
  let done = false;
  const bound = (target: object, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== "prepare") return bound(target, prop);
      return (sql: string) => {
        const statement = target.prepare(sql);
        if (done || !/FROM event_chunks ORDER BY first_id DESC/.test(sql)) {
          return statement;
        }
        return new Proxy(statement, {
          get(st, name) {
            if (name !== "get") return bound(st, name);
            return (...args: never[]) => {
              const row = st.get(...args);
              done = true;
              afterNewestId();
              return row;
            };
          },
        });
      };
    },
  });
}

/** Writes `event` at once, from a connection of its own (another process, say). */
function writeNow(path: string, event: QueryEvent): void {
  const db = openQueryLogDb(path);
  try {
    const packer = new QueryEventPacker(16);
    packer.add(event);
    const batch = packer.take();
    new BatchStore(db).writeEvents(
      [{ batch, from: 0, to: batch.count }],
      createEventFilter(querylogSettings()),
      event.time,
    );
  } finally {
    db.close();
  }
}

Deno.test("kudurru querylog -f prints a query written while it starts once", async () => {
  await using data = await dataDir();
  const path = join(data.dir, QUERYLOG_DB_FILE);
  const stop = new AbortController();
  const b = bufferIO();
  const running = makeQuerylogCommand({
    signal: stop.signal,
    pollMs: 10,
    openDb: (p) =>
      interceptNewestId(
        openQueryLogDb(p, { readOnly: true }),
        () => writeNow(path, queryEvent({ time: T0 + 4000, qname: "seam." })),
      ),
  }).run(["--data-dir", data.dir, "-f", "-o", "json"], b.io);
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    if (b.stdout().includes("seam.")) break;
  }
  // Time for a second copy to show up, if one were coming.
  await new Promise((r) => setTimeout(r, 100));
  stop.abort();
  assert.equal(await running, 0);
  const printed = b.stdout().trimEnd().split("\n").map((l) =>
    JSON.parse(l) as LoggedEvent
  );
  assert.deepEqual(printed.map((e) => e.qname), [
    "www.example.com.",
    "ads.tracker.example.",
    "cdn.example.net.",
    "seam.",
  ]);
  assert.deepEqual(printed.map((e) => e.id), [1, 2, 3, 4]);
});

Deno.test("kudurru querylog says which list and rule let an answer through", async () => {
  await using data = await dataDir([
    queryEvent({
      time: T0 + 1000,
      qname: "cloak.site.test.",
      list: "fixes",
      rule: "@@||cloak.site.test^",
      durationUs: 300,
    }),
  ]);
  const got = await run(["--data-dir", data.dir]);
  assert.match(
    got.stdout,
    /cloak\.site\.test\.\s+A\s+NOERROR\s+forwarded\s+allowed by fixes: @@\|\|cloak\.site\.test\^\s+300µs/,
  );
  const json = await run(["--data-dir", data.dir, "-o", "json"]);
  const [event] = (JSON.parse(json.stdout) as { events: LoggedEvent[] })
    .events;
  assert.equal(event?.status, "forwarded", "the answer's own status");
  assert.equal(event?.list, "fixes");
  assert.equal(event?.rule, "@@||cloak.site.test^");
});
