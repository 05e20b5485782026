import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/constants.ts";
import { parseQuery } from "../dns/wire/query.ts";
import { readAddressRecords } from "./address_records.ts";
import { buildQuery } from "./build_query.ts";
import { parseUpstreamServer } from "../config/upstream_server.ts";
import { BROKEN_ANSWERS } from "./testdata/broken_answers.ts";
import {
  answer,
  question,
  type Script,
  startUdpUpstream,
  urlOf,
} from "./testdata/scripted_upstream.ts";
import { createUdpTransport } from "./udp.ts";

/** Sends one query for `name` to a scripted server; the A addresses of the answer. */
async function ask(
  script: Script,
  opts: { hostname?: string; name?: string; waitMs?: number } = {},
): Promise<string[]> {
  const server = startUdpUpstream(script, opts);
  const parsed = parseUpstreamServer(urlOf("udp", server));
  const transport = createUdpTransport(parsed, { address: server.hostname });
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error("test deadline")), 1000);
  try {
    const query = buildQuery(question(opts.name ?? "www.example.org."), 4321);
    const reply = await transport.exchange(query, stop.signal);
    assert.equal(parseQuery(reply).id, 4321);
    return readAddressRecords(reply, TYPE.A).addresses;
  } finally {
    clearTimeout(timer);
    transport.close();
    await server.close();
  }
}

Deno.test("udp transport returns the server's answer", async () => {
  const addresses = await ask((q) => [{
    message: answer(q, { a: ["192.0.2.1"] }),
  }]);
  assert.deepEqual(addresses, ["192.0.2.1"]);
});

Deno.test("udp transport works over IPv6 loopback", async () => {
  const addresses = await ask(
    (q) => [{ message: answer(q, { a: ["192.0.2.6"] }) }],
    { hostname: "::1" },
  );
  assert.deepEqual(addresses, ["192.0.2.6"]);
});

Deno.test("udp transport drops an answer with another ID and keeps waiting", async () => {
  const addresses = await ask((q) => [
    { message: answer(q, { id: (q.id + 1) & 0xffff, a: ["192.0.2.66"] }) },
    { message: answer(q, { a: ["192.0.2.1"] }), delayMs: 30 },
  ]);
  assert.deepEqual(addresses, ["192.0.2.1"]);
});

Deno.test("udp transport drops an answer to another question", async () => {
  const addresses = await ask((q) => [
    { message: answer(q, { name: "evil.example.", a: ["192.0.2.66"] }) },
    { message: answer(q, { a: ["192.0.2.1"] }), delayMs: 30 },
  ]);
  assert.deepEqual(addresses, ["192.0.2.1"]);
});

Deno.test("udp transport ignores an answer from another source port", async () => {
  const addresses = await ask((q) => [
    { message: answer(q, { a: ["192.0.2.66"] }), fromOtherSocket: true },
    { message: answer(q, { a: ["192.0.2.1"] }), delayMs: 30 },
  ]);
  assert.deepEqual(addresses, ["192.0.2.1"]);
});

Deno.test("udp transport gives up when the signal aborts", async () => {
  const server = startUdpUpstream(() => []);
  const parsed = parseUpstreamServer(urlOf("udp", server));
  const transport = createUdpTransport(parsed, { address: server.hostname });
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error("deadline")), 50);
  try {
    await assert.rejects(
      transport.exchange(buildQuery(question("a.example."), 1), stop.signal),
      /deadline/,
    );
    assert.equal(server.seen.length, 1);
  } finally {
    clearTimeout(timer);
    await server.close();
  }
});

Deno.test("udp transport takes an answer over 4096 octets as truncated", async () => {
  const many = Array.from(
    { length: 300 },
    (_, i) => `192.0.${i >> 8}.${i & 255}`,
  );
  const server = startUdpUpstream((q) => [{ message: answer(q, { a: many }) }]);
  const parsed = parseUpstreamServer(urlOf("udp", server));
  const transport = createUdpTransport(parsed, { address: server.hostname });
  try {
    const query = buildQuery(question("big.example."), 77);
    const reply = await transport.exchange(query, new AbortController().signal);
    const info = parseQuery(reply);
    assert.equal(info.id, 77);
    assert.equal(info.question?.name, "big.example.");
    assert.equal(info.flags & 0x0200, 0x0200, "TC: askServer asks over TCP");
    assert.equal(readAddressRecords(reply, TYPE.A).addresses.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("udp transport answers stay whole when the next exchange reuses the buffer", async () => {
  const server = startUdpUpstream((q) => [{
    message: answer(q, {
      a: [q.question?.name.startsWith("one") ? "192.0.2.1" : "192.0.2.2"],
    }),
  }]);
  const parsed = parseUpstreamServer(urlOf("udp", server));
  const transport = createUdpTransport(parsed, { address: server.hostname });
  try {
    const signal = new AbortController().signal;
    const first = await transport.exchange(
      buildQuery(question("one.example."), 1),
      signal,
    );
    await transport.exchange(buildQuery(question("two.example."), 2), signal);
    assert.equal(parseQuery(first).id, 1);
    assert.deepEqual(readAddressRecords(first, TYPE.A).addresses, [
      "192.0.2.1",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("udp transport ends the exchange on a broken answer to its query, not on a stray one", async () => {
  // Cut off within its record: not even its framing parses.
  const broken = BROKEN_ANSWERS.find((b) => b.name.startsWith("trunc"))!.make;
  const server = startUdpUpstream((q) => [
    { message: broken({ ...q, id: (q.id + 1) & 0xffff }) },
    { message: broken(q), delayMs: 20 },
    { message: answer(q, { a: ["192.0.2.1"] }), delayMs: 400 },
  ]);
  const parsed = parseUpstreamServer(urlOf("udp", server));
  const transport = createUdpTransport(parsed, { address: server.hostname });
  try {
    const started = performance.now();
    const query = buildQuery(question("mx.example."), 99);
    const reply = await transport.exchange(query, new AbortController().signal);
    assert.ok(performance.now() - started < 300, "not the late good answer");
    assert.deepEqual(reply, broken(parseQuery(query)));
  } finally {
    await server.close();
  }
});
