import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import { readAddressRecords } from "./address_records.ts";
import { createResolver } from "./resolver.ts";
import { BROKEN_ANSWERS } from "./testdata/broken_answers.ts";
import {
  answer,
  question,
  type ScriptedServer,
  startTcpUpstream,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "./testdata/scripted_upstream.ts";
import type { UpstreamResult } from "./types.ts";
import { UpstreamCounters } from "./upstream_counters.ts";

/** Resolves "www.example.org. A" `times` times over a strict group of `urls`. */
async function resolveOver(
  urls: string[],
  counters: UpstreamCounters,
  times = 1,
): Promise<{ result: UpstreamResult; ms: number }[]> {
  const resolver = createResolver(
    upstreamSettings({
      default: { servers: urls, strategy: "strict", timeout: 2000 },
    }),
    { logger: memoryLogger(), counters },
  );
  const out = [];
  try {
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      const result = await resolver.resolve(
        "default",
        question("www.example.org."),
      );
      out.push({ result, ms: performance.now() - started });
    }
  } finally {
    await resolver.close();
  }
  return out;
}

Deno.test("resolver fails at once on a broken answer from its one server, counted as malformed", async (t) => {
  for (const broken of BROKEN_ANSWERS) {
    for (const scheme of ["udp", "tcp"] as const) {
      await t.step(`${scheme} ${broken.name}`, async () => {
        const start = scheme === "udp" ? startUdpUpstream : startTcpUpstream;
        const server = start((q) => [{ message: broken.make(q) }]);
        const counters = new UpstreamCounters();
        try {
          const { result, ms } = (await resolveOver(
            [urlOf(scheme, server)],
            counters,
          ))[0]!;
          assert.deepEqual(
            result.ok ? "ok" : [result.reason, /malformed/.test(result.detail)],
            ["error", true],
          );
          assert.ok(ms < 500, `${Math.round(ms)} ms: not waited out`);
          const counts = counters.drain()[urlOf(scheme, server)];
          assert.deepEqual(
            [counts?.errors, counts?.malformed, counts?.timeouts],
            [1, 1, 0],
          );
        } finally {
          await server.close();
        }
      });
    }
  }
});

Deno.test("group strict moves on at once past a broken UDP answer and keeps asking that server first", async () => {
  const broken: ScriptedServer = startUdpUpstream((q) => [{
    message: BROKEN_ANSWERS[0]!.make(q),
  }]);
  const good = startUdpUpstream((q) => [{
    message: answer(q, { a: ["192.0.2.7"] }),
  }]);
  try {
    const results = await resolveOver(
      [urlOf("udp", broken), urlOf("udp", good)],
      new UpstreamCounters(),
      2,
    );
    for (const { result, ms } of results) {
      assert.ok(result.ok, result.ok ? "" : result.detail);
      assert.deepEqual(readAddressRecords(result.message, TYPE.A).addresses, [
        "192.0.2.7",
      ]);
      assert.ok(ms < 500, `${Math.round(ms)} ms: no hedge delay`);
    }
    // A broken answer is the server's failure for that name, not silence.
    assert.equal(broken.seen.length, 2);
  } finally {
    await Promise.all([broken.close(), good.close()]);
  }
});
