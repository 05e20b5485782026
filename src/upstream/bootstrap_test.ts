import assert from "node:assert/strict";
import { RCODE, TYPE } from "../dns/wire/constants.ts";
import { createBootstrap } from "./bootstrap.ts";
import {
  answer,
  type ScriptedServer,
  startTcpUpstream,
  startUdpUpstream,
} from "./testdata/scripted_upstream.ts";

function never(): AbortSignal {
  return new AbortController().signal;
}

Deno.test("bootstrap prefers an IPv4 address", async () => {
  const server = startUdpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q, { a: ["192.0.2.4"] })
      : answer(q, { aaaa: ["2001:db8::6"] }),
  }]);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
    });
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap falls back to IPv6 when there is no A record", async () => {
  const server = startUdpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q)
      : answer(q, { aaaa: ["2001:db8::6"] }),
  }]);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
    });
    assert.equal(await bootstrap.lookup("dns.test", never()), "2001:db8::6");
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap caches an address for at least a minute", async () => {
  let now = 1_000_000;
  const server = startUdpUpstream((q) => [{
    message: answer(
      q,
      q.question!.type === TYPE.A ? { a: ["192.0.2.4"], ttl: 5 } : {},
    ),
  }]);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
      now: () => now,
    });
    await bootstrap.lookup("dns.test", never());
    now += 59_000;
    await bootstrap.lookup("dns.test", never());
    assert.equal(askedA(server), 1);
    now += 2_000;
    // Expired: still answered at once, looked up again in the background.
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    await until(() => askedA(server) === 2);
  } finally {
    await server.close();
  }
});

/** A queries `server` has seen. */
function askedA(server: ScriptedServer): number {
  return server.seen.filter((s) => s.query.question?.type === TYPE.A).length;
}

/** Waits (at most 2 s) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(done(), "in time");
}

Deno.test("bootstrap takes an A answer without waiting for an AAAA that never comes", async () => {
  const server = startUdpUpstream((q) =>
    q.question!.type === TYPE.A
      ? [{ message: answer(q, { a: ["192.0.2.4"] }) }]
      : []
  );
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
      timeoutMs: 1_000,
    });
    const started = performance.now();
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 500, `took ${elapsed} ms`);
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap keeps using an expired address while its servers are down", async () => {
  let now = 1_000_000;
  let up = true;
  const server = startUdpUpstream((q) =>
    up
      ? [{
        message: answer(
          q,
          q.question!.type === TYPE.A ? { a: ["192.0.2.4"], ttl: 5 } : {},
        ),
      }]
      : []
  );
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
      timeoutMs: 100,
      now: () => now,
    });
    await bootstrap.lookup("dns.test", never());
    up = false;
    now += 61_000; // past the minute an address is kept at least
    const started = performance.now();
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    assert.ok(performance.now() - started < 50, "no wait for the lookup");
    await until(() => askedA(server) === 2);
    await new Promise((r) => setTimeout(r, 400)); // the lookup fails (100 ms)
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    assert.equal(askedA(server), 2, "asked again only after 30 s");
    now += 30_000;
    await bootstrap.lookup("dns.test", never());
    await until(() => askedA(server) === 3);
    await new Promise((r) => setTimeout(r, 400)); // let it fail before the end
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap tries the next server and names every failure", async () => {
  const refusing = startUdpUpstream((
    q,
  ) => [{ message: answer(q, { rcode: RCODE.REFUSED }) }]);
  const silent = startUdpUpstream(() => []);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${refusing.port}`, `127.0.0.1:${silent.port}`],
      timeoutMs: 100,
    });
    await assert.rejects(
      bootstrap.lookup("dns.test", never()),
      (e: Error) =>
        e.message.startsWith(
          'Cannot resolve upstream host "dns.test" through the bootstrap servers',
        ) && /RCODE 5/.test(e.message) &&
        /no answer within 100 ms/.test(e.message),
    );
    assert.equal(silent.seen.length, 2);
  } finally {
    await refusing.close();
    await silent.close();
  }
});

Deno.test("bootstrap drops an expired address once a server says the host has none", async () => {
  let now = 1_000_000;
  let gone = false;
  const server = startUdpUpstream((q) => [{
    message: gone ? answer(q, { rcode: RCODE.NXDOMAIN }) : answer(
      q,
      q.question!.type === TYPE.A ? { a: ["192.0.2.4"], ttl: 5 } : {},
    ),
  }]);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
      timeoutMs: 200,
      now: () => now,
    });
    await bootstrap.lookup("dns.test", never());
    gone = true; // the name was retired
    now += 61_000;
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    await until(() => askedA(server) === 2);
    await new Promise((r) => setTimeout(r, 100)); // the NXDOMAIN lands
    await assert.rejects(
      bootstrap.lookup("dns.test", never()),
      /Cannot resolve upstream host "dns.test".*NXDOMAIN/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap refuses a server that is not an IP address", () => {
  assert.throws(
    () => createBootstrap({ servers: ["dns.example:53"] }),
    /Cannot use bootstrap server "dns.example:53": it must be a plain IP address/,
  );
});

Deno.test("bootstrap moves to a name's next address when the one in use failed", async () => {
  const server = startUdpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q, { a: ["192.0.2.4", "192.0.2.5"] })
      : answer(q, { aaaa: [] }),
  }]);
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${server.port}`],
    });
    const lookup = () => bootstrap.lookup("dns.test", never());
    assert.equal(await lookup(), "192.0.2.4");
    bootstrap.failed("dns.test", "192.0.2.4");
    assert.equal(await lookup(), "192.0.2.5");
    // A late failure of the address left behind changes nothing.
    bootstrap.failed("dns.test", "192.0.2.4");
    assert.equal(await lookup(), "192.0.2.5");
    bootstrap.failed("dns.test", "192.0.2.5");
    assert.equal(await lookup(), "192.0.2.4", "round again");
  } finally {
    await server.close();
  }
});

Deno.test("bootstrap asks again over TCP when the UDP answer is truncated", async () => {
  const tcp = startTcpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q, { a: ["192.0.2.4"] })
      : answer(q, { aaaa: ["2001:db8::6"] }),
  }]);
  const udp = startUdpUpstream((q) => [{ message: answer(q, { tc: true }) }], {
    port: tcp.port,
  });
  try {
    const bootstrap = createBootstrap({
      servers: [`127.0.0.1:${udp.port}`],
      timeoutMs: 1000,
    });
    assert.equal(await bootstrap.lookup("dns.test", never()), "192.0.2.4");
    assert.ok(tcp.seen.length >= 1);
  } finally {
    await udp.close();
    await tcp.close();
  }
});
