import assert from "node:assert/strict";
import { RCODE, TYPE } from "../dns/wire/constants.ts";
import type { QueryInfo } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { memoryLogger } from "../log/logger.ts";
import { readAddressRecords } from "./address_records.ts";
import { EdnsSupport, NO_EDNS_FOR_MS } from "./edns_support.ts";
import { createResolver } from "./resolver.ts";
import {
  answer,
  question,
  type Script,
  type ScriptedServer,
  startTcpUpstream,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "./testdata/scripted_upstream.ts";
import { UpstreamCounters } from "./upstream_counters.ts";

/** A server that answers `refusal` to a query with EDNS, and A 192.0.2.1 to one without. */
function refusingEdns(refusal: (q: QueryInfo) => Uint8Array): Script {
  return (q) => [{
    message: q.edns === undefined
      ? answer(q, { a: ["192.0.2.1"] })
      : refusal(q),
  }];
}

/** Whether each query `server` saw carried an OPT record. */
function ednsSeen(server: ScriptedServer): boolean[] {
  return server.seen.map((s) => s.query.edns !== undefined);
}

/** Resolves `times` times over a group of the one server `url`. */
async function resolveTimes(
  url: string,
  times: number,
  opts: {
    counters?: UpstreamCounters;
    now?: () => number;
    between?: () => void;
  } = {},
) {
  const { between, ...resolverOpts } = opts;
  const resolver = createResolver(
    upstreamSettings({ default: { servers: [url], timeout: 2000 } }),
    { logger: memoryLogger(), ...resolverOpts },
  );
  const results = [];
  try {
    for (let i = 0; i < times; i++) {
      results.push(await resolver.resolve("default", question("old.example.")));
      between?.();
    }
  } finally {
    await resolver.close();
  }
  return results;
}

/** An answer with `rcode` and an OPT record: a server that speaks EDNS. */
const answerWithOpt = (rcode: number) => (q: QueryInfo) =>
  encodeResponse({
    id: q.id,
    opcode: q.opcode,
    rcode,
    question: q.question!,
    edns: { udpSize: 1232 },
  }, 65535);

Deno.test("askServer asks once more without EDNS when the server refuses it, and remembers", async (t) => {
  const cases: [string, Script, boolean][] = [
    ["FORMERR", refusingEdns((q) => answer(q, { rcode: RCODE.FORMERR })), true],
    ["NOTIMP", refusingEdns((q) => answer(q, { rcode: RCODE.NOTIMP })), true],
    [
      "FORMERR with an OPT record",
      refusingEdns(answerWithOpt(RCODE.FORMERR)),
      false,
    ],
    [
      "SERVFAIL",
      refusingEdns((q) => answer(q, { rcode: RCODE.SERVFAIL })),
      false,
    ],
  ];
  for (const [name, script, fallsBack] of cases) {
    for (const scheme of ["udp", "tcp"] as const) {
      await t.step(`${scheme} ${name}`, async () => {
        const start = scheme === "udp" ? startUdpUpstream : startTcpUpstream;
        const server = start(script);
        const counters = new UpstreamCounters();
        try {
          const url = urlOf(scheme, server);
          const results = await resolveTimes(url, 2, { counters });
          assert.deepEqual(
            results.map((r) => r.ok),
            fallsBack ? [true, true] : [false, false],
          );
          // Asked with EDNS, then without; the next query goes without at once.
          assert.deepEqual(
            ednsSeen(server),
            fallsBack ? [true, false, false] : [true, true],
          );
          assert.equal(counters.drain()[url]?.ednsFallbacks, fallsBack ? 1 : 0);
        } finally {
          await server.close();
        }
      });
    }
  }
});

Deno.test("askServer asks with EDNS again once the server's refusal is old", async () => {
  const server = startUdpUpstream(
    refusingEdns((q) => answer(q, { rcode: RCODE.FORMERR })),
  );
  let now = 1_000_000;
  const steps = [NO_EDNS_FOR_MS - 1, 1, 0];
  try {
    const results = await resolveTimes(urlOf("udp", server), 3, {
      now: () => now,
      between: () => {
        now += steps.shift() ?? 0;
      },
    });
    assert.deepEqual(results.map((r) => r.ok), [true, true, true]);
    assert.deepEqual(ednsSeen(server), [true, false, false, true, false]);
  } finally {
    await server.close();
  }
});

Deno.test("askServer asks a truncated answer without EDNS again over TCP, without EDNS", async () => {
  const tcp = startTcpUpstream((q) => [{
    message: answer(q, { a: ["192.0.2.44"] }),
  }]);
  // Without EDNS the UDP answer is truncated, as one over 512 octets would be.
  const udp = startUdpUpstream((q) => [{
    message: answer(
      q,
      q.edns === undefined ? { tc: true } : { rcode: RCODE.FORMERR },
    ),
  }], { port: tcp.port });
  try {
    const [result] = await resolveTimes(urlOf("udp", udp), 1);
    assert.ok(result?.ok, result?.ok ? "" : result?.detail);
    assert.deepEqual(readAddressRecords(result.message, TYPE.A).addresses, [
      "192.0.2.44",
    ]);
    assert.deepEqual(ednsSeen(udp), [true, false]);
    assert.deepEqual(ednsSeen(tcp), [false]);
  } finally {
    await Promise.all([udp.close(), tcp.close()]);
  }
});

Deno.test("EdnsSupport leaves EDNS out for a while after a refusal", () => {
  let now = 0;
  const edns = new EdnsSupport(() => now);
  assert.equal(edns.useEdns, true);
  edns.refused();
  now = NO_EDNS_FOR_MS - 1;
  assert.equal(edns.useEdns, false);
  now = NO_EDNS_FOR_MS;
  assert.equal(edns.useEdns, true);
});
