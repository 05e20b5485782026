import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { type DnsListenersOptions, startDnsListeners } from "./listeners.ts";
import { ListenerError } from "./listener_error.ts";
import type { CounterDeltas } from "./worker_messages.ts";
import {
  answerRecords,
  buildQuery,
  frames,
  readFrame,
  udpExchange,
  within,
  writeAll,
} from "../testing/dns_client.ts";
import { startTestListeners } from "./testdata/start_test_listeners.ts";

const start = startTestListeners;

function portOf(
  listeners: { addresses(): { transport: string; port: number }[] },
  transport: string,
): number {
  const found = listeners.addresses().find((a) => a.transport === transport);
  assert.ok(found, `no ${transport} listener`);
  return found.port;
}

function snapshot(version: number): Snapshot {
  return {
    version,
    builtAt: new Date(0).toISOString(),
    node: { name: "test", version: "0.0.0-test" },
    zones: [],
    forwardZones: [],
  };
}

Deno.test("startDnsListeners serves UDP and TCP on one port from workers", async (t) => {
  for (const host of ["127.0.0.1", "[::1]"]) {
    await t.step(host, async () => {
      await using l = await start({
        listeners: [{ address: `${host}:0`, protocols: ["udp", "tcp"] }],
      });
      const hostname = host.replace(/[[\]]/g, "");
      const port = portOf(l, "udp");
      assert.equal(portOf(l, "tcp"), port);
      const udp = await udpExchange(hostname, port, buildQuery(1, "u.test"));
      assert.deepEqual(answerRecords(udp).records, ["A 192.0.2.1"]);
      using conn = await Deno.connect({ hostname, port });
      await writeAll(conn, frames(buildQuery(2, "t.test")));
      const tcp = await within(readFrame(conn), 2000);
      assert.equal(answerRecords(tcp!).id, 2);
    });
  }
});

Deno.test("startDnsListeners reports the bound addresses", async () => {
  await using l = await start();
  const port = portOf(l, "udp");
  assert.ok(port > 0);
  assert.deepEqual(l.addresses(), [
    { transport: "udp", hostname: "127.0.0.1", port },
    { transport: "tcp", hostname: "127.0.0.1", port },
  ]);
});

async function startError(opts: Partial<DnsListenersOptions>) {
  try {
    await (await start(opts)).stop();
  } catch (err) {
    return err;
  }
  assert.fail("the listeners started");
}

Deno.test("startDnsListeners fails with a clear error when the address is in use", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (busy.addr as Deno.NetAddr).port;
  const err = await startError({
    listeners: [
      { address: "127.0.0.1:0", protocols: ["udp"] },
      { address: `127.0.0.1:${port}`, protocols: ["tcp"] },
    ],
  });
  assert.ok(err instanceof ListenerError);
  assert.equal(err.code, "AddrInUse");
  assert.equal(
    err.message,
    `Cannot listen on 127.0.0.1:${port}/tcp: address in use; another DNS ` +
      "server (systemd-resolved, dnsmasq, another kudurru) is using it",
  );
});

Deno.test("startDnsListeners stops the listeners it started when one fails", async () => {
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (busy.addr as Deno.NetAddr).port;
  const err = await startError({
    listeners: [{ address: `127.0.0.1:${port}`, protocols: ["udp", "tcp"] }],
  });
  assert.ok(err instanceof ListenerError);
  // The UDP worker got the port first; once stopped, the port is free again.
  const again = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port,
  });
  again.close();
});

Deno.test("startDnsListeners stop finishes a query in flight", async () => {
  const l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
  });
  try {
    const port = portOf(l, "udp");
    const answer = udpExchange(
      "127.0.0.1",
      port,
      buildQuery(4, "slow-300.test"),
    );
    await new Promise((r) => setTimeout(r, 100));
    const stopping = l.stop();
    assert.equal(answerRecords(await answer).id, 4);
    await stopping;
  } finally {
    await l.stop();
  }
});

Deno.test("startDnsListeners setSnapshot reaches every worker", async () => {
  await using l = await start();
  const port = portOf(l, "udp");
  const ask = () =>
    udpExchange("127.0.0.1", port, buildQuery(1, "snapshot.test"));
  assert.deepEqual(answerRecords(await ask()).records, ["TXT none"]);
  l.setSnapshot(snapshot(7));
  let records: string[] = [];
  for (let i = 0; i < 50 && records[0] !== "TXT 7"; i++) {
    records = answerRecords(await ask()).records;
    if (records[0] !== "TXT 7") await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(records, ["TXT 7"]);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await writeAll(conn, frames(buildQuery(2, "snapshot.test")));
  assert.deepEqual(
    answerRecords((await within(readFrame(conn), 2000))!).records,
    [
      "TXT 7",
    ],
  );
});

Deno.test("startDnsListeners whenServed resolves once every worker answers from the snapshot", async () => {
  await using l = await start();
  const port = portOf(l, "udp");
  l.setSnapshot(snapshot(8));
  const started = Date.now();
  await l.whenServed(8, 10_000);
  assert.ok(Date.now() - started < 5_000, "not by the timeout");
  // At once, from both transports.
  assert.deepEqual(
    answerRecords(
      await udpExchange("127.0.0.1", port, buildQuery(1, "snapshot.test")),
    ).records,
    ["TXT 8"],
  );
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await writeAll(conn, frames(buildQuery(2, "snapshot.test")));
  assert.deepEqual(
    answerRecords((await within(readFrame(conn), 2000))!).records,
    ["TXT 8"],
  );
  // A version no worker has: the timeout ends the wait.
  const waited = Date.now();
  await l.whenServed(9, 200);
  assert.ok(Date.now() - waited >= 190);
});

Deno.test("startDnsListeners passes worker counters to onCounters", async () => {
  const counted: CounterDeltas[] = [];
  await using l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    countersIntervalMs: 20,
    onCounters: (d) => counted.push(d),
  });
  await udpExchange("127.0.0.1", portOf(l, "udp"), buildQuery(1, "a.test"));
  for (let i = 0; i < 100 && counted.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const queries = counted.reduce((n, d) => n + d.socket.queries, 0);
  const pipeline = counted.reduce(
    (n, d) => n + (d.handler?.queries.udp ?? 0),
    0,
  );
  assert.deepEqual({ queries, pipeline }, { queries: 1, pipeline: 1 });
});

Deno.test("startDnsListeners runs the stage chain in its default worker", async () => {
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    nodeName: "node-under-test",
    version: "0.0.0-test",
    logger: memoryLogger(),
  });
  await using _stop = { [Symbol.asyncDispose]: () => l.stop() };
  const reply = await udpExchange(
    "127.0.0.1",
    portOf(l, "udp"),
    buildQuery(3, "id.server", "TXT", "CH"),
  );
  assert.deepEqual(answerRecords(reply).records, ["TXT node-under-test"]);
});

Deno.test("startDnsListeners default worker counts queries in its pipeline", async () => {
  const counted: CounterDeltas[] = [];
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["tcp"] }],
    nodeName: "node-under-test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    countersIntervalMs: 20,
    onCounters: (d) => counted.push(d),
  });
  await using _stop = { [Symbol.asyncDispose]: () => l.stop() };
  using conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: portOf(l, "tcp"),
  });
  await writeAll(conn, frames(buildQuery(5, "id.server", "TXT", "CH")));
  const reply = await within(readFrame(conn), 2000);
  assert.deepEqual(answerRecords(reply!).records, ["TXT node-under-test"]);
  for (let i = 0; i < 100; i++) {
    if (counted.some((d) => d.handler?.queries.tcp)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const tcp = counted.reduce((n, d) => n + (d.handler?.queries.tcp ?? 0), 0);
  assert.equal(tcp, 1);
});

Deno.test("startDnsListeners restarts a worker that died, on the same port, with the last snapshot", async () => {
  const logger = memoryLogger();
  await using l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    logger,
  });
  const port = portOf(l, "udp");
  l.setSnapshot(snapshot(7));
  await udpExchange("127.0.0.1", port, buildQuery(1, "crash.test"), 300)
    .catch(() => {}); // no answer: the worker dies
  // Silence until the new worker listens; its first answer already comes
  // from the last snapshot (it gets it before it binds).
  const deadline = Date.now() + 10_000;
  let reply: Uint8Array | undefined;
  while (reply === undefined) {
    reply = await udpExchange(
      "127.0.0.1",
      port,
      buildQuery(2, "snapshot.test", "TXT"),
      300,
    ).catch((err) => {
      if (Date.now() > deadline) throw err;
      return undefined;
    });
  }
  assert.deepEqual(answerRecords(reply).records, ["TXT 7"]);
  assert.deepEqual(l.down(), []);
  assert.ok(logger.lines.some((line) => /Restarting the listener/.test(line)));
});

Deno.test("startDnsListeners restarts a listener that keeps dying after a pause, and stops at once during it", async () => {
  await using l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
  });
  const port = portOf(l, "udp");
  const deadline = Date.now() + 20_000;
  while (!l.down().some((d) => /restarting in 1 s/.test(d))) {
    assert.ok(Date.now() < deadline, `never paused: ${l.down()}`);
    await udpExchange("127.0.0.1", port, buildQuery(1, "crash.test"), 200)
      .catch(() => {});
  }
  assert.match(
    l.down()[0]!,
    new RegExp(
      `^127\\.0\\.0\\.1:${port}/udp: restarting in 1 s after repeated errors: .*crash\\.test asked`,
    ),
  );
  const stopping = performance.now();
  await l.stop();
  assert.ok(performance.now() - stopping < 900, "the pause ends at the stop");
});

Deno.test("startDnsListeners workers answer from zones a later snapshot kept, and from changed ones", async () => {
  const l = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp", "tcp"] }],
    nodeName: "node-under-test",
    version: "0.0.0-test",
    logger: memoryLogger(),
  });
  await using _stop = { [Symbol.asyncDispose]: () => l.stop() };
  const zone = (name: string, address: string) =>
    zoneFromText(name, [
      `${name} 60 IN SOA ns1.${name} h.${name} 1 3600 900 1209600 30`,
      `www.${name} 60 IN A ${address}`,
    ]);
  const ask = async (name: string) =>
    answerRecords(
      await udpExchange("127.0.0.1", portOf(l, "udp"), buildQuery(1, name)),
    ).records;
  /** The answer once the workers have the snapshot (posting is async). */
  const settled = async (name: string, expected: string[]) => {
    let records: string[] = [];
    for (let i = 0; i < 100; i++) {
      records = await ask(name);
      if (JSON.stringify(records) === JSON.stringify(expected)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return records;
  };
  const a = zone("a.test.", "192.0.2.1");
  l.setSnapshot(snapshotOf([a], [], 1));
  assert.deepEqual(await settled("www.a.test", ["A 192.0.2.1"]), [
    "A 192.0.2.1",
  ]);
  // a goes as its name only; b is new.
  l.setSnapshot(snapshotOf([a, zone("b.test.", "192.0.2.2")], [], 2));
  assert.deepEqual(await settled("www.b.test", ["A 192.0.2.2"]), [
    "A 192.0.2.2",
  ]);
  assert.deepEqual(await ask("www.a.test"), ["A 192.0.2.1"]);
  // a changed.
  l.setSnapshot(snapshotOf([zone("a.test.", "192.0.2.3")], [], 3));
  assert.deepEqual(await settled("www.a.test", ["A 192.0.2.3"]), [
    "A 192.0.2.3",
  ]);
});
