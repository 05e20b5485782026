import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import { readAddressRecords } from "./address_records.ts";
import { createResolver } from "./resolver.ts";
import {
  answer,
  question,
  startTcpUpstream,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "./testdata/scripted_upstream.ts";

Deno.test("resolver answers an unknown group with an error", async () => {
  const resolver = createResolver(
    upstreamSettings({ default: { servers: ["127.0.0.1:9"] } }),
    { logger: memoryLogger() },
  );
  try {
    assert.deepEqual(
      await resolver.resolve("nope", question("example.org.")),
      {
        ok: false,
        reason: "unknown_group",
        detail: 'unknown upstream group "nope"',
      },
    );
  } finally {
    await resolver.close();
  }
});

Deno.test("resolver refuses a bad server naming its group and entry", () => {
  assert.throws(
    () =>
      createResolver(
        upstreamSettings({ default: { servers: ["1.1.1.1", "quic://x"] } }),
        { logger: memoryLogger() },
      ),
    (e: Error) =>
      e.message === "Cannot use upstreams.groups.default.servers[1]" &&
      /unknown scheme "quic"/.test(String((e.cause as Error).message)),
  );
});

Deno.test("resolver shares one connection to a server named by two groups", async () => {
  const tcp = startTcpUpstream((
    q,
  ) => [{ message: answer(q, { a: ["192.0.2.9"] }) }]);
  const resolver = createResolver(
    upstreamSettings({
      default: { servers: [urlOf("tcp", tcp)] },
      other: { servers: [urlOf("tcp", tcp)] },
    }),
    { logger: memoryLogger() },
  );
  try {
    assert.ok((await resolver.resolve("default", question("a.example."))).ok);
    assert.ok((await resolver.resolve("other", question("b.example."))).ok);
    assert.equal(tcp.connections, 1);
  } finally {
    await resolver.close();
    await tcp.close();
  }
});

Deno.test("resolver reaches a server by name through the bootstrap servers", async () => {
  const tcp = startTcpUpstream((
    q,
  ) => [{ message: answer(q, { a: ["192.0.2.10"] }) }]);
  const bootstrap = startUdpUpstream((q) => {
    const name = q.question!.name;
    if (name !== "upstream.test." || q.question!.type !== TYPE.A) {
      return [{ message: answer(q) }];
    }
    return [{ message: answer(q, { a: ["127.0.0.1"], ttl: 5 }) }];
  });
  const resolver = createResolver(
    upstreamSettings(
      { default: { servers: [`tcp://upstream.test:${tcp.port}`] } },
      [`127.0.0.1:${bootstrap.port}`],
    ),
    { logger: memoryLogger() },
  );
  try {
    const result = await resolver.resolve(
      "default",
      question("www.example.org."),
    );
    assert.ok(result.ok, result.ok ? "" : result.detail);
    assert.deepEqual(readAddressRecords(result.message, TYPE.A).addresses, [
      "192.0.2.10",
    ]);
    assert.equal(result.server, `tcp://upstream.test:${tcp.port}`);
    assert.deepEqual(
      bootstrap.seen.map((s) =>
        `${s.query.question!.name} ${s.query.question!.type}`
      ).sort(),
      [`upstream.test. ${TYPE.A}`, `upstream.test. ${TYPE.AAAA}`],
    );
  } finally {
    await resolver.close();
    await bootstrap.close();
    await tcp.close();
  }
});

Deno.test("resolver keeps at most maxInFlight queries waiting per group and in all", async (t) => {
  const silent = startUdpUpstream(() => []);
  const resolver = createResolver(
    upstreamSettings(
      {
        default: { servers: [urlOf("udp", silent)], maxInFlight: 2 },
        other: { servers: [urlOf("udp", silent)], maxInFlight: 10 },
      },
      [],
      3,
    ),
    { logger: memoryLogger() },
  );
  const controller = new AbortController();
  const ask = (group: string, name: string) =>
    resolver.resolve(group, {
      ...question(name),
      signal: controller.signal,
    });
  try {
    const waiting = [
      ask("default", "a.example."),
      ask("default", "b.example."),
    ];
    await t.step(
      "past the group's bound: busy at once, naming the setting",
      async () => {
        const busy = await ask("default", "c.example.");
        assert.deepEqual(busy, {
          ok: false,
          reason: "busy",
          detail:
            'upstream group "default" has 2 queries waiting (upstreams.groups.default.maxInFlight)',
        });
      },
    );
    await t.step("another group still has room, up to the total", async () => {
      waiting.push(ask("other", "d.example."));
      const busy = await ask("other", "e.example.");
      assert.equal(busy.ok, false);
      assert.match(
        busy.ok ? "" : busy.detail,
        /^3 queries are waiting on upstream groups \(upstreams\.maxInFlight\)$/,
      );
    });
    await t.step("room again once the waiting queries end", async () => {
      controller.abort();
      for (const result of await Promise.all(waiting)) {
        assert.equal(result.ok, false);
        assert.notEqual(result.ok ? "" : result.reason, "busy");
      }
      const again = await resolver.resolve("default", {
        ...question("f.example."),
        signal: AbortSignal.abort(),
      });
      assert.notEqual(again.ok ? "" : again.reason, "busy");
    });
  } finally {
    await resolver.close();
    await silent.close();
  }
});
