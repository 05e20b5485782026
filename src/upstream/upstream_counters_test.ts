import assert from "node:assert/strict";
import { RCODE } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import { createResolver } from "./resolver.ts";
import {
  answer,
  question,
  type ScriptedServer,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "./testdata/scripted_upstream.ts";
import {
  MAX_UPSTREAMS_PER_BATCH,
  OTHER_UPSTREAM,
  UpstreamCounters,
} from "./upstream_counters.ts";

Deno.test("upstream counters count per server and start from zero after a drain", () => {
  const counters = new UpstreamCounters();
  counters.countQuery("udp://192.0.2.1:53");
  counters.countAnswer("udp://192.0.2.1:53", 12.5);
  counters.countQuery("udp://192.0.2.1:53");
  counters.countAnswer("udp://192.0.2.1:53", Number.NaN); // counted, not summed
  counters.countQuery("tls://1.1.1.1");
  counters.countError("tls://1.1.1.1");
  counters.countTimeout("tls://1.1.1.1");
  counters.countQuery("udp://192.0.2.9:53");
  counters.countError("udp://192.0.2.9:53");
  counters.countMalformed("udp://192.0.2.9:53");
  counters.countEdnsFallback("udp://192.0.2.9:53");
  assert.deepEqual({ ...counters.drain() }, {
    "udp://192.0.2.1:53": {
      queries: 2,
      errors: 0,
      malformed: 0,
      timeouts: 0,
      ednsFallbacks: 0,
      answers: 2,
      rttSumMs: 12.5,
    },
    "tls://1.1.1.1": {
      queries: 1,
      errors: 1,
      malformed: 0,
      timeouts: 1,
      ednsFallbacks: 0,
      answers: 0,
      rttSumMs: 0,
    },
    "udp://192.0.2.9:53": {
      queries: 1,
      errors: 1,
      malformed: 1,
      timeouts: 0,
      ednsFallbacks: 1,
      answers: 0,
      rttSumMs: 0,
    },
  });
  assert.deepEqual({ ...counters.drain() }, {});
});

Deno.test("upstream counters keep at most a bounded number of servers per batch", () => {
  const counters = new UpstreamCounters();
  for (let i = 0; i < MAX_UPSTREAMS_PER_BATCH + 10; i++) {
    counters.countQuery(`udp://192.0.2.${i}:53`);
  }
  const counts = counters.drain();
  assert.equal(Object.keys(counts).length, MAX_UPSTREAMS_PER_BATCH + 1);
  assert.equal(counts[OTHER_UPSTREAM]?.queries, 10);
});

/** A UDP upstream answering A 192.0.2.1, or with `rcode`, or never. */
function server(behaviour: { rcode?: number; silent?: boolean }) {
  return startUdpUpstream((q) =>
    behaviour.silent ? [] : [{
      message: answer(q, {
        rcode: behaviour.rcode ?? RCODE.NOERROR,
        a: ["192.0.2.1"],
      }),
    }]
  );
}

async function resolveWith(
  servers: ScriptedServer[],
  counters: UpstreamCounters,
  timeout = 2000,
) {
  const resolver = createResolver(
    upstreamSettings({
      default: {
        servers: servers.map((s) => urlOf("udp", s)),
        strategy: "strict",
        timeout,
      },
    }),
    { logger: memoryLogger(), counters },
  );
  try {
    return await resolver.resolve("default", question("www.example.org."));
  } finally {
    await resolver.close();
  }
}

Deno.test("a resolver counts attempts, failures and answers per configured server", async () => {
  const failing = server({ rcode: RCODE.SERVFAIL });
  const good = server({});
  const counters = new UpstreamCounters();
  try {
    const result = await resolveWith([failing, good], counters);
    assert.ok(result.ok);
    const counts = counters.drain();
    assert.deepEqual(counts[urlOf("udp", failing)], {
      queries: 1,
      errors: 1,
      malformed: 0,
      timeouts: 0,
      ednsFallbacks: 0,
      answers: 0,
      rttSumMs: 0,
    });
    const answered = counts[urlOf("udp", good)];
    assert.equal(answered?.queries, 1);
    assert.equal(answered?.answers, 1);
    assert.ok(answered.rttSumMs > 0 && answered.rttSumMs < 2000);
  } finally {
    await Promise.all([failing.close(), good.close()]);
  }
});

Deno.test("a resolver counts a server still silent at the group timeout as a timeout", async () => {
  const silent = server({ silent: true });
  const counters = new UpstreamCounters();
  try {
    const result = await resolveWith([silent], counters, 100);
    assert.equal(result.ok ? "ok" : result.reason, "timeout");
    // Asked twice (a group of one UDP server retransmits), silent both times.
    assert.deepEqual(counters.drain()[urlOf("udp", silent)], {
      queries: 2,
      errors: 0,
      malformed: 0,
      timeouts: 2,
      ednsFallbacks: 0,
      answers: 0,
      rttSumMs: 0,
    });
  } finally {
    await silent.close();
  }
});
