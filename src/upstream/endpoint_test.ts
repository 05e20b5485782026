import assert from "node:assert/strict";
import { RCODE, TYPE } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import { readAddressRecords } from "./address_records.ts";
import { createResolver } from "./resolver.ts";
import {
  answer,
  question,
  type Script,
  type ScriptedServer,
  startTcpUpstream,
  startUdpUpstream,
  upstreamSettings,
} from "./testdata/scripted_upstream.ts";
import type { UpstreamResult } from "./types.ts";

/**
 * Names the first label picks the reply of: "slow…" after 400 ms,
 * "servfail…" SERVFAIL, "silent…" none; anything else `address` at once.
 */
function scripted(address: string): Script {
  return (q) => {
    const name = q.question!.name;
    if (name.startsWith("silent")) return [];
    if (name.startsWith("servfail")) {
      return [{ message: answer(q, { rcode: RCODE.SERVFAIL }) }];
    }
    return [{
      message: answer(q, { a: [address] }),
      delayMs: name.startsWith("slow") ? 400 : 0,
    }];
  };
}

/**
 * A resolver with one TCP server, tcp://dns.test, whose name has two
 * addresses, 127.0.0.1 (`first`) and 127.0.0.2 (`second`), same port.
 */
async function withServerByName(
  body: (
    ask: (name: string) => Promise<UpstreamResult>,
    first: ScriptedServer,
    second: ScriptedServer,
  ) => Promise<void>,
): Promise<void> {
  const first = startTcpUpstream(scripted("192.0.2.1"));
  const second = startTcpUpstream(scripted("192.0.2.2"), {
    hostname: "127.0.0.2",
    port: first.port,
  });
  const bootstrap = startUdpUpstream((q) => [{
    message: q.question!.type === TYPE.A
      ? answer(q, { a: ["127.0.0.1", "127.0.0.2"] })
      : answer(q, { aaaa: [] }),
  }]);
  const resolver = createResolver(
    upstreamSettings(
      {
        default: {
          servers: [`tcp://dns.test:${first.port}`],
          strategy: "strict",
          timeout: 500,
        },
      },
      [`127.0.0.1:${bootstrap.port}`],
    ),
    { logger: memoryLogger() },
  );
  try {
    await body(
      (name) => resolver.resolve("default", question(name)),
      first,
      second,
    );
  } finally {
    await resolver.close();
    await Promise.all([first.close(), second.close(), bootstrap.close()]);
  }
}

function addressOf(result: UpstreamResult): string | undefined {
  assert.ok(result.ok, result.ok ? "" : result.detail);
  return readAddressRecords(result.message, TYPE.A).addresses[0];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("endpoint keeps a name's address, and its queries in flight, after a SERVFAIL", async () => {
  await withServerByName(async (ask, first, second) => {
    assert.equal(addressOf(await ask("warm.example.")), "192.0.2.1");
    const slow = [1, 2, 3].map((n) => ask(`slow${n}.example.`));
    await sleep(20);
    const servfail = await ask("servfail.example.");
    assert.match(servfail.ok ? "" : servfail.detail, /answered SERVFAIL/);
    // The address answered: it stays the one used.
    assert.equal(addressOf(await ask("plain.example.")), "192.0.2.1");
    for (const result of await Promise.all(slow)) {
      assert.equal(addressOf(result), "192.0.2.1");
    }
    assert.equal(first.connections, 1);
    assert.equal(second.seen.length, 0);
  });
});

Deno.test("endpoint lets a name's old address answer its queries in flight after moving on", async () => {
  await withServerByName(async (ask, first, second) => {
    assert.equal(addressOf(await ask("warm.example.")), "192.0.2.1");
    // Silent for the whole timeout (500 ms): 127.0.0.1 counts as failed.
    // The answer to fast.example. meanwhile shows the connection alive.
    const silent = ask("silent.example.");
    assert.equal(addressOf(await ask("fast.example.")), "192.0.2.1");
    await sleep(200);
    const slow = [1, 2, 3].map((n) => ask(`slow${n}.example.`));
    assert.equal((await silent).ok, false);
    // The next query goes to 127.0.0.2 ...
    assert.equal(addressOf(await ask("plain.example.")), "192.0.2.2");
    // ... while 127.0.0.1 still answers what was sent to it.
    for (const result of await Promise.all(slow)) {
      assert.equal(addressOf(result), "192.0.2.1");
    }
    assert.equal(first.seen.length, 6, "nothing asked again");
    assert.equal(second.seen.length, 1);
  });
});
