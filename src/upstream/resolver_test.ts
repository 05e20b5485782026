import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/mod.ts";
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
