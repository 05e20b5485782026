/**
 * `listeners.sockets` and `listeners.ffiSockets` with real workers: several
 * sockets on one port, each in its own worker, and the libc UDP socket.
 */
import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { socketCount } from "./listeners.ts";
import { ListenerError } from "./listener_error.ts";
import {
  closeUdpSocket,
  libc,
  openUdpSocket,
  RECEIVE_BUFFER_BYTES,
  receiveBufferBytes,
  SEND_TIMEOUT_MS,
  sendTimeoutMs,
} from "./libc_udp.ts";
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

// Loaded once for the file: the leak check counts a library loaded in a test.
libc();

const start = startTestListeners;

/**
 * Asks `count` queries over UDP, each from a socket of its own (a source
 * port of its own, which SO_REUSEPORT hashes to one of the sockets), and
 * returns the IDs that got no answer.
 */
async function unansweredFromManyPorts(
  port: number,
  count: number,
): Promise<number[]> {
  const lost: number[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      (_, id) =>
        udpExchange("127.0.0.1", port, buildQuery(id, "many.test"), 1000)
          .then((reply) => assert.equal(answerRecords(reply).id, id))
          .catch(() => lost.push(id)),
    ),
  );
  return lost;
}

Deno.test("socketCount: TCP and libc UDP get listeners.sockets (0: one per CPU, at most 8), Deno's UDP one", () => {
  assert.equal(socketCount("udp", { sockets: 4 }), 1);
  assert.equal(socketCount("udp", { sockets: 4, ffiSockets: true }), 4);
  assert.equal(socketCount("tcp", { sockets: 3 }), 3);
  assert.equal(socketCount("tcp", {}), 1);
  assert.equal(
    socketCount("tcp", { sockets: 0 }),
    Math.min(navigator.hardwareConcurrency, 8),
  );
});

Deno.test("listeners.sockets 2 with ffiSockets: two UDP and two TCP workers share one port, and all answer", async () => {
  await using l = await start({ sockets: 2, ffiSockets: true });
  const bound = l.addresses();
  const port = bound[0]!.port;
  assert.deepEqual(
    bound.map((b) => `${b.transport} ${b.port}`),
    [`udp ${port}`, `udp ${port}`, `tcp ${port}`, `tcp ${port}`],
  );
  // Told apart (their counters and cache sizes are theirs).
  assert.deepEqual(bound.map((b) => b.socket), [0, 1, 0, 1]);
  // A socket nobody reads would lose about half of these.
  assert.deepEqual(await unansweredFromManyPorts(port, 40), []);
  for (let id = 0; id < 6; id++) {
    using conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await writeAll(conn, frames(buildQuery(id, "t.test")));
    const reply = await within(readFrame(conn), 2000);
    assert.equal(answerRecords(reply!).id, id);
  }
});

Deno.test("ffiSockets serves IPv6 and tells the client's address as Deno's socket does", async () => {
  await using l = await start({
    listeners: [{ address: "[::1]:0", protocols: ["udp"] }],
    ffiSockets: true,
  });
  const port = l.addresses()[0]!.port;
  const reply = await udpExchange(
    "::1",
    port,
    buildQuery(5, "client.test", "TXT"),
  );
  assert.deepEqual(answerRecords(reply).records, ["TXT ::1"]);
});

// Deno's own socket on [::] does the same (the test task's --allow-net does
// not let it bind [::]; the FFI socket is beyond Deno's permissions).
Deno.test("ffiSockets on [::] answers IPv4 clients too, as ::ffff: addresses like Deno's socket", async () => {
  await using l = await start({
    listeners: [{ address: "[::]:0", protocols: ["udp"] }],
    ffiSockets: true,
  });
  const port = l.addresses()[0]!.port;
  const reply = await udpExchange(
    "127.0.0.1",
    port,
    buildQuery(6, "client.test", "TXT"),
  );
  assert.deepEqual(answerRecords(reply).records, ["TXT ::ffff:127.0.0.1"]);
});

/** Crashes one worker of `l` (the one `crash.test` reaches) and waits for its replacement. */
async function crashOneWorker(
  l: { down(): string[] },
  port: number,
  logger: { lines: string[] },
): Promise<void> {
  const restarts = () =>
    logger.lines.filter((line) => /Restarting the listener/.test(line)).length;
  const before = restarts();
  await udpExchange("127.0.0.1", port, buildQuery(1, "crash.test"), 300)
    .catch(() => {}); // no answer: the worker dies
  const deadline = Date.now() + 10_000;
  while (restarts() === before || l.down().length > 0) {
    assert.ok(Date.now() < deadline, `never restarted: ${l.down()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("ffiSockets: a worker that died is replaced on the same socket, again and again", async () => {
  const logger = memoryLogger();
  await using l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    ffiSockets: true,
    logger,
  });
  const port = l.addresses()[0]!.port;
  for (let round = 0; round < 3; round++) {
    await crashOneWorker(l, port, logger);
    // The socket never closed: no new bind to lose to a port still held
    // by the dead worker's last call ("address in use").
    assert.deepEqual(await unansweredFromManyPorts(port, 10), []);
  }
  assert.ok(
    !logger.lines.some((line) => /cannot restart/.test(line)),
    logger.lines.join("\n"),
  );
});

Deno.test("ffiSockets with two sockets: after a crash both sockets are read again", async () => {
  const logger = memoryLogger();
  await using l = await start({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    sockets: 2,
    ffiSockets: true,
    logger,
  });
  const port = l.addresses()[0]!.port;
  await crashOneWorker(l, port, logger);
  // A socket of the port that nobody read would lose about half of these.
  assert.deepEqual(await unansweredFromManyPorts(port, 40), []);
});

Deno.test("listeners.sockets 2 on a port another kudurru holds the same way fails, for TCP and libc UDP", async () => {
  await using first = await start({ sockets: 2, ffiSockets: true });
  const port = first.addresses()[0]!.port;
  for (const transport of ["udp", "tcp"] as const) {
    const err = await start({
      listeners: [{ address: `127.0.0.1:${port}`, protocols: [transport] }],
      sockets: 2,
      ffiSockets: true,
    }).then(
      async (l) => {
        await l.stop();
        assert.fail(`a second ${transport} listener set shared the port`);
      },
      (e: unknown) => e,
    );
    assert.ok(err instanceof ListenerError);
    assert.equal(err.code, "AddrInUse");
    assert.match(
      err.message,
      new RegExp(
        `^Cannot listen on 127\\.0\\.0\\.1:${port}/${transport}: address in use`,
      ),
    );
  }
  // The first set still has every answer.
  assert.deepEqual(await unansweredFromManyPorts(port, 20), []);
});

Deno.test("ffiSockets on a port another socket holds fails with the usual message", async () => {
  const busy = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const port = (busy.addr as Deno.NetAddr).port;
  const err = await start({
    listeners: [{ address: `127.0.0.1:${port}`, protocols: ["udp"] }],
    ffiSockets: true,
  }).then(
    async (l) => {
      await l.stop();
      assert.fail("the listener started");
    },
    (e: unknown) => e,
  ).finally(() => busy.close());
  assert.ok(err instanceof ListenerError);
  assert.equal(err.code, "AddrInUse");
  assert.match(
    err.message,
    new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}/udp: address in use`),
  );
});

/** A net.core setting (reading /proc itself would need --allow-all). */
async function sysctl(name: string): Promise<number> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/sys/net/core/${name}`],
  }).output();
  return Number(new TextDecoder().decode(out.stdout));
}

Deno.test("ffiSockets: the socket's receive buffer holds a burst (4 MiB asked, capped by rmem_max without CAP_NET_ADMIN)", async () => {
  const socket = openUdpSocket("127.0.0.1", 0);
  try {
    const rmemMax = await sysctl("rmem_max");
    const rmemDefault = await sysctl("rmem_default");
    const got = receiveBufferBytes(socket.fd);
    // Without CAP_NET_ADMIN the kernel caps it at twice rmem_max, and it is
    // only raised when that beats the default it has.
    const privileged = got === 2 * RECEIVE_BUFFER_BYTES;
    const capped = Math.max(
      rmemDefault,
      2 * Math.min(RECEIVE_BUFFER_BYTES, rmemMax),
    );
    assert.ok(privileged || got === capped, `got ${got}`);
    assert.ok(got >= rmemDefault, "never less than Deno's socket gets");
  } finally {
    closeUdpSocket(socket.fd);
  }
});

Deno.test("ffiSockets: a send waits a bounded time for room in a full send buffer (SO_SNDTIMEO), as NSD's does", () => {
  const socket = openUdpSocket("127.0.0.1", 0);
  try {
    // Before, sends used MSG_DONTWAIT: a full buffer dropped the answer.
    // The kernel keeps it in clock ticks (4 ms at HZ=250): rounded up.
    const got = sendTimeoutMs(socket.fd);
    assert.ok(got >= SEND_TIMEOUT_MS && got < SEND_TIMEOUT_MS + 11, `${got}`);
  } finally {
    closeUdpSocket(socket.fd);
  }
});
