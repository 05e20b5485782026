import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import {
  isPackedQueryEvents,
  type PackedQueryEvents,
  unpackQueryEvents,
} from "../pipeline/query_event_pack.ts";
import { startDnsListeners } from "./listeners.ts";
import { startTestListeners } from "./testdata/start_test_listeners.ts";
import {
  answerRecords,
  buildQuery,
  frames,
  readFrame,
  udpExchange,
  within,
  writeAll,
} from "../testing/dns_client.ts";

Deno.test("query events reach onEvents from the default worker, packed and intact", async () => {
  const batches: { events: PackedQueryEvents; dropped: number }[] = [];
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp", "tcp"] }],
    nodeName: "node-under-test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    onEvents: (events, dropped) => batches.push({ events, dropped }),
  });
  const port = l.addresses()[0]!.port;
  const before = Date.now();
  const sizes = { udp: 0, tcp: 0 };
  try {
    for (const id of [1, 2, 3]) {
      const reply = await udpExchange(
        "127.0.0.1",
        port,
        buildQuery(id, "id.server", "TXT", "CH"),
      );
      assert.deepEqual(answerRecords(reply).records, ["TXT node-under-test"]);
      sizes.udp = reply.length;
    }
    using conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await writeAll(conn, frames(buildQuery(4, "version.bind", "TXT", "CH")));
    const reply = await within(readFrame(conn), 2000);
    assert.ok(reply);
    sizes.tcp = reply.length;
  } finally {
    // A stopping worker posts what it still holds before it says stopped.
    await l.stop();
  }

  for (const { events } of batches) {
    assert.ok(isPackedQueryEvents(events), "a packed batch, not objects");
    assert.equal(
      new Set(events.strings).size,
      events.strings.length,
      "each string once",
    );
  }
  assert.deepEqual(batches.map((b) => b.dropped), batches.map(() => 0));
  const events = batches.flatMap((b) => unpackQueryEvents(b.events));
  assert.equal(events.length, 4);
  for (const e of events) {
    assert.ok(e.time >= before && e.time <= Date.now(), "arrival time");
    assert.ok(e.clientPort > 0 && e.clientPort < 65536);
    assert.ok(e.durationUs >= 0);
    assert.equal(e.responseSize, sizes[e.transport as "udp" | "tcp"]);
  }
  const stable = events.map((e) => {
    const {
      time: _t,
      clientPort: _p,
      durationUs: _d,
      responseSize: _s,
      ...rest
    } = e;
    return rest;
  }).sort((a, b) => a.transport.localeCompare(b.transport));
  const chaos = {
    node: "node-under-test",
    clientAddress: "127.0.0.1",
    groups: [],
    qtype: 16,
    qclass: 3,
    rcode: 0,
    dnssecOk: false,
    authenticData: false,
  };
  assert.deepEqual(stable, [
    {
      ...chaos,
      transport: "tcp",
      qname: "version.bind.",
      status: "chaos",
      stage: "ingress",
      answer: 'TXT "kudurru 0.0.0-test"',
    },
    ...[1, 2, 3].map(() => ({
      ...chaos,
      transport: "udp",
      qname: "id.server.",
      status: "chaos",
      stage: "ingress",
      answer: 'TXT "node-under-test"',
    })),
  ]);
});

Deno.test("a malformed batch of query events is ignored and logged once", async () => {
  const logger = memoryLogger();
  let calls = 0;
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger,
    workerUrl: new URL(
      "./testdata/malformed_events_worker_entry.ts",
      import.meta.url,
    ),
    onEvents: () => calls++,
  });
  try {
    // The worker posts every 250 ms: wait for at least one such post.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reply = await udpExchange(
      "127.0.0.1",
      l.addresses()[0]!.port,
      buildQuery(1, "still.test"),
    );
    assert.deepEqual(answerRecords(reply).records, ["A 192.0.2.1"]);
  } finally {
    await l.stop(); // posts once more
  }
  assert.equal(calls, 0);
  const warnings = logger.lines.filter((line) =>
    line.includes("malformed query events")
  );
  assert.equal(warnings.length, 1);
});

Deno.test("after a batch of query events goes missing, the worker starts a new string table", async () => {
  const names: string[] = [];
  let dropped = 0;
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: new URL(
      "./testdata/gapped_events_worker_entry.ts",
      import.meta.url,
    ),
    onEvents: (events, lost) => {
      names.push(...unpackQueryEvents(events).map((e) => e.qname));
      dropped += lost;
    },
  });
  try {
    // The worker drains every 250 ms; the restart takes a round trip.
    const deadline = Date.now() + 5000;
    while (names.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await l.stop();
  }
  assert.ok(names.length > 0, "batches after the restart are read");
  assert.equal(names.includes("lost.test."), false);
  assert.equal(names.includes("drain-1.test."), false, "unreadable");
  assert.ok(dropped >= 1, "the unreadable batch counts as dropped");
  for (const name of names) assert.match(name, /^drain-\d+\.test\.$/);
});

Deno.test("a worker fills the arrays of the query events the main thread released", async () => {
  const names: string[] = [];
  let release = true;
  {
    await using _listeners = await startTestListeners({
      listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
      workerUrl: new URL(
        "./testdata/recycling_events_worker_entry.ts",
        import.meta.url,
      ),
      onEvents: (events) => {
        names.push(...unpackQueryEvents(events).map((e) => e.qname));
        if (release) events.release?.();
      },
    });
    const reused = () =>
      Math.max(0, ...names.map((n) => Number(/reused-(\d+)/.exec(n)![1])));
    // A drain every 250 ms; a batch released at once comes back before
    // the next one, which fills it (the drain after that says so).
    const deadline = Date.now() + 5000;
    while (reused() < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(reused() >= 2, names.join(" "));
    // Batches not released are not filled again.
    release = false;
    const before = names.length;
    while (names.length < before + 3 && Date.now() < deadline + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const last = names.slice(-2).map((n) => /reused-(\d+)/.exec(n)![1]);
  assert.equal(last[0], last[1], names.join(" "));
});
