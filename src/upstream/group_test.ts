import assert from "node:assert/strict";
import { EDNS_OPTION, RCODE, TYPE } from "../dns/wire/constants.ts";
import { extendedError } from "../dns/wire/extended_error.ts";
import { parseQuery } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { memoryLogger } from "../log/logger.ts";
import { readAddressRecords } from "./address_records.ts";
import { attemptBudgetMs } from "./group.ts";
import { createResolver, type ResolverOptions } from "./resolver.ts";
import type { StrategyName } from "./strategies.ts";
import {
  answer,
  errorWithoutQuestion,
  question,
  type ScriptedServer,
  seededRandom,
  startTcpUpstream,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "./testdata/scripted_upstream.ts";
import { within } from "../testing/dns_client.ts";
import { createTransport } from "./transport_factory.ts";
import type { UpstreamResult } from "./types.ts";

/** A UDP server answering A `address` after `delayMs`, or with `rcode`, or not at all. */
function udpServer(
  behaviour: {
    address?: string;
    delayMs?: number;
    rcode?: number;
    silent?: boolean;
  },
  log?: string[],
): ScriptedServer {
  const server: ScriptedServer = startUdpUpstream((q) => {
    log?.push(urlOf("udp", server));
    if (behaviour.silent) return [];
    return [{
      message: answer(q, {
        rcode: behaviour.rcode ?? RCODE.NOERROR,
        a: [behaviour.address ?? "192.0.2.1"],
      }),
      delayMs: behaviour.delayMs ?? 0,
    }];
  });
  return server;
}

/** Runs `body` against a resolver with one group "default" over `servers`. */
async function withGroup(
  servers: ScriptedServer[],
  group: { strategy: StrategyName; timeout?: number },
  body: (
    resolve: () => Promise<UpstreamResult>,
  ) => Promise<void>,
  opts: Partial<ResolverOptions> = {},
): Promise<void> {
  const resolver = createResolver(
    upstreamSettings({
      default: { servers: servers.map((s) => urlOf("udp", s)), ...group },
    }),
    { logger: memoryLogger(), random: seededRandom(7), ...opts },
  );
  try {
    await body(() => resolver.resolve("default", question("www.example.org.")));
  } finally {
    await resolver.close();
    await Promise.all(servers.map((s) => s.close()));
  }
}

function addressOf(result: UpstreamResult): string | undefined {
  assert.ok(result.ok, result.ok ? "" : result.detail);
  return readAddressRecords(result.message, TYPE.A).addresses[0];
}

Deno.test("group answers from its server with the server as configured", async () => {
  const server = udpServer({ address: "192.0.2.7" });
  await withGroup([server], { strategy: "strict" }, async (resolve) => {
    const result = await resolve();
    assert.equal(addressOf(result), "192.0.2.7");
    assert.equal(result.ok && result.server, urlOf("udp", server));
  });
});

Deno.test("group takes NXDOMAIN as an answer", async () => {
  const server = udpServer({ rcode: RCODE.NXDOMAIN });
  await withGroup([server], { strategy: "strict" }, async (resolve) => {
    const result = await resolve();
    assert.ok(result.ok);
    assert.equal(parseQuery(result.message).flags & 0xf, RCODE.NXDOMAIN);
  });
});

Deno.test("group strict fails over in order past a silent and a SERVFAIL server", async () => {
  const log: string[] = [];
  const servers = [
    udpServer({ silent: true }, log),
    udpServer({ rcode: RCODE.SERVFAIL }, log),
    udpServer({ address: "192.0.2.3" }, log),
  ];
  await withGroup(
    servers,
    { strategy: "strict", timeout: 600 },
    async (resolve) => {
      assert.equal(addressOf(await resolve()), "192.0.2.3");
      assert.deepEqual(log, servers.map((s) => urlOf("udp", s)));
    },
  );
});

Deno.test("group strict stops asking a silent first server first once it was overtaken", async () => {
  const log: string[] = [];
  const servers = [
    udpServer({ silent: true }, log),
    udpServer({ address: "192.0.2.2" }, log),
  ];
  await withGroup(
    servers,
    { strategy: "strict", timeout: 400 },
    async (resolve) => {
      // The first query waits the hedge delay (200 ms) for the silent one.
      assert.equal(addressOf(await resolve()), "192.0.2.2");
      assert.deepEqual(log, servers.map((s) => urlOf("udp", s)));
      // Overtaken, it counts as failed: the next ones go to the live
      // server first and wait for nothing.
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        assert.equal(addressOf(await resolve()), "192.0.2.2");
        assert.ok(performance.now() - started < 150, "no hedge delay");
      }
      assert.equal(log.length, 5, "the silent server was asked once");
    },
  );
});

Deno.test("group strict keeps asking its first server first after it SERVFAILs one name", async () => {
  // An internal resolver first, a public one after: one name the first
  // cannot resolve must not send every other name to the second.
  const first = startUdpUpstream((q) => [{
    message: q.question!.name.startsWith("bad.")
      ? answer(q, { rcode: RCODE.SERVFAIL })
      : answer(q, { a: ["192.0.2.1"] }),
  }]);
  const second = udpServer({ address: "192.0.2.2" });
  const resolver = createResolver(
    upstreamSettings({
      default: {
        servers: [urlOf("udp", first), urlOf("udp", second)],
        strategy: "strict",
        timeout: 1000,
      },
    }),
    { logger: memoryLogger() },
  );
  const ask = (name: string) => resolver.resolve("default", question(name));
  try {
    assert.equal(addressOf(await ask("bad.example.")), "192.0.2.2");
    for (let i = 0; i < 3; i++) {
      assert.equal(addressOf(await ask(`good${i}.example.`)), "192.0.2.1");
    }
    assert.equal(second.seen.length, 1, "asked for bad.example. only");
  } finally {
    await resolver.close();
    await first.close();
    await second.close();
  }
});

Deno.test("group tries the next server at once after SERVFAIL", async () => {
  const servers = [
    udpServer({ rcode: RCODE.SERVFAIL }),
    udpServer({ address: "192.0.2.2" }),
  ];
  await withGroup(
    servers,
    { strategy: "strict", timeout: 1000 },
    async (resolve) => {
      const started = performance.now();
      assert.equal(addressOf(await resolve()), "192.0.2.2");
      // The hedge delay would be 500 ms; a failure must not wait for it.
      assert.ok(performance.now() - started < 250);
    },
  );
});

Deno.test("group tries the next server at once after an error answer without a question", async () => {
  const servers = [
    startUdpUpstream((q) => [{
      message: errorWithoutQuestion(q, RCODE.REFUSED),
    }]),
    udpServer({ address: "192.0.2.2" }),
  ];
  await withGroup(
    servers,
    { strategy: "strict", timeout: 1000 },
    async (resolve) => {
      const started = performance.now();
      assert.equal(addressOf(await resolve()), "192.0.2.2");
      // Dropped, it would cost the hedge delay (500 ms).
      assert.ok(performance.now() - started < 250);
    },
  );
});

Deno.test("group of one server asks again after half the timeout when a datagram is lost", async () => {
  const asked: string[] = [];
  // Drops the first datagram, answers the second.
  const server = startUdpUpstream((q) => {
    asked.push(q.question!.name);
    return asked.length === 1
      ? []
      : [{ message: answer(q, { a: ["192.0.2.9"] }) }];
  });
  await withGroup(
    [server],
    { strategy: "parallel_best", timeout: 400 },
    async (resolve) => {
      const started = performance.now();
      assert.equal(addressOf(await resolve()), "192.0.2.9");
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 190 && elapsed < 390, `took ${elapsed} ms`);
      assert.equal(asked.length, 2);
    },
  );
});

Deno.test("group of one TCP server does not ask again on the same stream", async () => {
  const seen: string[] = [];
  const server = startTcpUpstream((q) => {
    seen.push(q.question!.name);
    return [{ message: answer(q, { a: ["192.0.2.9"] }), delayMs: 300 }];
  });
  const resolver = createResolver(
    upstreamSettings({
      default: {
        servers: [urlOf("tcp", server)],
        strategy: "parallel_best",
        timeout: 500,
      },
    }),
    { logger: memoryLogger() },
  );
  try {
    const result = await resolver.resolve(
      "default",
      question("www.example.org."),
    );
    assert.equal(addressOf(result), "192.0.2.9");
    assert.equal(seen.length, 1, "a stream loses no query");
  } finally {
    await resolver.close();
    await server.close();
  }
});

Deno.test("group of one server does not ask again after a failure", async () => {
  const log: string[] = [];
  const servers = [udpServer({ rcode: RCODE.SERVFAIL }, log)];
  await withGroup(servers, { strategy: "strict" }, async (resolve) => {
    const result = await resolve();
    assert.equal(!result.ok && result.reason, "error");
    assert.equal(log.length, 1);
  });
});

Deno.test("group fails with every server's reason when all refuse", async () => {
  const servers = [
    udpServer({ rcode: RCODE.REFUSED }),
    udpServer({ rcode: RCODE.SERVFAIL }),
  ];
  await withGroup(servers, { strategy: "strict" }, async (resolve) => {
    const result = await resolve();
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, "error");
    const detail = result.ok ? "" : result.detail;
    assert.match(
      detail,
      new RegExp(`${urlOf("udp", servers[0]!)}: answered REFUSED`),
    );
    assert.match(
      detail,
      new RegExp(`${urlOf("udp", servers[1]!)}: answered SERVFAIL`),
    );
    assert.equal(!result.ok && result.server, urlOf("udp", servers[1]!));
  });
});

Deno.test("group times out within its timeout", async () => {
  const servers = [udpServer({ silent: true }), udpServer({ silent: true })];
  await withGroup(
    servers,
    { strategy: "parallel_best", timeout: 200 },
    async (resolve) => {
      const started = performance.now();
      const result = await resolve();
      const elapsed = performance.now() - started;
      assert.equal(!result.ok && result.reason, "timeout");
      // A twentieth of the timeout is kept for sending the answer.
      assert.match(!result.ok ? result.detail : "", /^no answer within 190 ms/);
      assert.ok(elapsed >= 185 && elapsed < 450, `took ${elapsed} ms`);
      const named = !result.ok && result.server;
      assert.ok(servers.some((s) => urlOf("udp", s) === named), `${named}`);
    },
  );
});

Deno.test("group's servers get its timeout but the time kept for answering", () => {
  assert.equal(attemptBudgetMs(2000), 1900); // the default: answered within 2 s
  assert.equal(attemptBudgetMs(1000), 950);
  assert.equal(attemptBudgetMs(60_000), 59_900); // at most 100 ms kept
  assert.equal(attemptBudgetMs(50), 47.5);
});

Deno.test("group retries a truncated UDP answer over TCP to the same server", async () => {
  const tcp = startTcpUpstream((
    q,
  ) => [{ message: answer(q, { a: ["192.0.2.44"] }) }]);
  const udp = startUdpUpstream(
    (q) => [{ message: answer(q, { tc: true }) }],
    { port: tcp.port },
  );
  try {
    await withGroup([udp], { strategy: "strict" }, async (resolve) => {
      const result = await resolve();
      assert.equal(addressOf(result), "192.0.2.44");
      assert.equal(result.ok && result.server, urlOf("udp", udp));
      assert.equal(udp.seen.length, 1);
      assert.equal(tcp.seen.length, 1);
      assert.notEqual(udp.seen[0]!.query.id, tcp.seen[0]!.query.id);
    });
  } finally {
    await tcp.close();
  }
});

Deno.test("group parallel_best takes the first answer and aborts the other", async () => {
  const slow = udpServer({ address: "192.0.2.1", delayMs: 150 });
  const fast = udpServer({ address: "192.0.2.2" });
  const aborted: string[] = [];
  const abortSeen = Promise.withResolvers<void>();
  const recordingFactory: ResolverOptions["createTransport"] = (
    server,
    deps,
  ) => {
    const inner = createTransport(server, deps);
    return {
      async exchange(query, signal) {
        try {
          return await inner.exchange(query, signal);
        } finally {
          if (signal.aborted) {
            aborted.push(server.raw);
            abortSeen.resolve();
          }
        }
      },
      close: () => inner.close(),
    };
  };
  await withGroup(
    [slow, fast],
    { strategy: "parallel_best", timeout: 1000 },
    async (resolve) => {
      const started = performance.now();
      const result = await resolve();
      assert.equal(addressOf(result), "192.0.2.2");
      assert.ok(performance.now() - started < 120);
      assert.equal(slow.seen.length, 1);
      assert.equal(fast.seen.length, 1);
      // The answer does not wait for the slow attempt to wind down.
      await within(abortSeen.promise, 1000);
      assert.deepEqual(aborted, [urlOf("udp", slow)]);
    },
    { createTransport: recordingFactory },
  );
});

Deno.test("group random spreads queries over its servers", async () => {
  const servers = [udpServer({}), udpServer({}), udpServer({})];
  await withGroup(servers, { strategy: "random" }, async (resolve) => {
    for (let i = 0; i < 60; i++) assert.ok((await resolve()).ok);
    for (const s of servers) {
      assert.ok(
        s.seen.length >= 8,
        `${servers.map((x) => x.seen.length)}`,
      );
    }
  });
});

Deno.test("group rtt_weighted prefers the faster server", async () => {
  const fast = udpServer({});
  const slow = udpServer({ delayMs: 40 });
  await withGroup(
    [slow, fast],
    { strategy: "rtt_weighted" },
    async (resolve) => {
      for (let i = 0; i < 30; i++) assert.ok((await resolve()).ok);
      assert.ok(
        fast.seen.length >= 22,
        `fast ${fast.seen.length}, slow ${slow.seen.length}`,
      );
    },
  );
});

Deno.test("group parallel_best moves away from a failing server", async () => {
  const failing = udpServer({ rcode: RCODE.SERVFAIL });
  const good = [udpServer({}), udpServer({})];
  await withGroup(
    [failing, ...good],
    { strategy: "parallel_best" },
    async (resolve) => {
      for (let i = 0; i < 10; i++) assert.ok((await resolve()).ok);
      assert.ok(
        failing.seen.length <= 2,
        `failing server asked ${failing.seen.length} times`,
      );
    },
  );
});

Deno.test("group sends every query with a fresh ID and source port", async () => {
  const server = udpServer({});
  await withGroup([server], { strategy: "strict" }, async (resolve) => {
    await resolve();
    await resolve();
    const [first, second] = server.seen;
    assert.notEqual(first!.query.id, second!.query.id);
    assert.notEqual(first!.port, second!.port);
  });
});

Deno.test("group stops when the request is cancelled", async () => {
  const server = udpServer({ silent: true });
  const resolver = createResolver(
    upstreamSettings({
      default: { servers: [urlOf("udp", server)], timeout: 2000 },
    }),
    { logger: memoryLogger() },
  );
  const cancel = new AbortController();
  const timer = setTimeout(() => cancel.abort(), 30);
  try {
    const started = performance.now();
    const result = await resolver.resolve("default", {
      ...question("www.example.org."),
      signal: cancel.signal,
    });
    assert.deepEqual(result, {
      ok: false,
      reason: "error",
      detail: "cancelled",
    });
    assert.ok(performance.now() - started < 500);
  } finally {
    clearTimeout(timer);
    await resolver.close();
    await server.close();
  }
});

Deno.test("group keeps the Extended DNS Errors of a failure answer", async () => {
  const why = extendedError(6, "validation failure"); // 6: DNSSEC Bogus
  const server = startUdpUpstream((q) => [{
    message: encodeResponse({
      id: q.id,
      opcode: q.opcode,
      rcode: RCODE.SERVFAIL,
      rd: true,
      ra: true,
      question: q.question!,
      edns: { udpSize: 1232, options: [{ code: EDNS_OPTION.EDE, data: why }] },
    }, 65535),
  }]);
  await withGroup([server], { strategy: "strict" }, async (resolve) => {
    const result = await resolve();
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.extendedErrors, [why]);
  });
});

Deno.test("group reaches a server by name at its next address when the first refuses", async () => {
  const live = startTcpUpstream((q) => [{
    message: answer(q, { a: ["192.0.2.9"] }),
  }]);
  // dns.test. has two addresses; nothing listens on the first.
  const bootstrap = startUdpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q, { a: ["127.0.0.2", "127.0.0.1"] })
      : answer(q, { aaaa: [] }),
  }]);
  const resolver = createResolver(
    upstreamSettings(
      { default: { servers: [`tcp://dns.test:${live.port}`] } },
      [`127.0.0.1:${bootstrap.port}`],
    ),
    { logger: memoryLogger(), random: seededRandom(7) },
  );
  try {
    const ask = () => resolver.resolve("default", question("www.example.org."));
    const first = await ask();
    assert.equal(first.ok, false, "127.0.0.2 refuses the connection");
    assert.equal(addressOf(await ask()), "192.0.2.9");
  } finally {
    await resolver.close();
    await live.close();
    await bootstrap.close();
  }
});
