/**
 * A forwarded CNAME chain that leads to a name its upstream may not speak
 * for is continued by that name's own route: our zones, the special-use
 * names, another group. End to end: the standard handler, the real
 * resolver over UDP, scripted upstreams that forge the target's records.
 */
import assert from "node:assert/strict";
import type { QueryInfo } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { memoryLogger } from "../log/logger.ts";
import type { ClientInfo } from "../pipeline/handler.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { decodeAnswer, encodeQuery } from "../testing/query_bytes.ts";
import {
  type ScriptedServer,
  startUdpUpstream,
  urlOf,
} from "../upstream/testdata/scripted_upstream.ts";
import { rrsets, upstreamsOf } from "./upstream/testdata/upstream_fixtures.ts";
import { cacheSchema, ratelimitSchema } from "../config/schema_resolver.ts";
import { createDataPlane, type StandardDataPlane } from "./data_plane.ts";

const CLIENT: ClientInfo = {
  address: "192.0.2.7",
  port: 40000,
  transport: "udp",
};

const HOME = zoneFromText("home.test.", [
  "home.test. 3600 IN SOA ns.home.test. admin.home.test. 5 7200 3600 1209600 300",
  "home.test. 3600 IN NS ns.home.test.",
  "ns.home.test. 3600 IN A 192.168.1.1",
  "www.home.test. 300 IN A 192.168.1.10",
]);

/** An upstream answering each name from `answers` (presentation lines), NXDOMAIN otherwise. */
function scripted(answers: Record<string, string[]>): ScriptedServer {
  return startUdpUpstream((query: QueryInfo) => {
    const question = query.question!;
    const lines = answers[question.name.toLowerCase()];
    return [{
      message: encodeResponse({
        id: query.id,
        opcode: 0,
        rcode: lines === undefined ? 3 : 0,
        rd: true,
        ra: true,
        question,
        answer: rrsets(lines ?? []),
      }, 65535),
    }];
  });
}

function snapshotFor(
  groups: Record<string, ScriptedServer>,
  conditional: Record<string, string> = {},
): Snapshot {
  const upstreams = upstreamsOf({
    groups: Object.fromEntries(
      Object.entries(groups).map((
        [name, server],
      ) => [name, { servers: [urlOf("udp", server)], timeout: "1s" }]),
    ),
    conditional,
  });
  return {
    ...snapshotOf([HOME]),
    settings: {
      upstreams,
      cache: cacheSchema.parse({}),
      ratelimit: ratelimitSchema.parse({}),
    },
  };
}

async function withHandler(
  snapshot: Snapshot,
  run: (
    ask: (q: string) => Promise<ReturnType<typeof decodeAnswer>>,
    plane: StandardDataPlane,
  ) => Promise<void>,
): Promise<void> {
  const plane = createDataPlane({ logger: memoryLogger() });
  const { handler } = plane;
  handler.setSnapshot(snapshot);
  const ask = async (q: string) => {
    const bytes = await handler.handle(encodeQuery(q), CLIENT);
    assert.ok(bytes !== null, `an answer to ${q}`);
    return decodeAnswer(bytes);
  };
  try {
    await run(ask, plane);
  } finally {
    await plane.close();
  }
}

Deno.test("chain into a local zone is answered from the zone, never from the upstream", async (t) => {
  const upstream = scripted({
    "x.example.": [
      "x.example. 86400 IN CNAME www.home.test.",
      "www.home.test. 86400 IN A 6.6.6.6",
    ],
    "gone.example.": ["gone.example. 86400 IN CNAME nope.home.test."],
  });
  try {
    await withHandler(
      snapshotFor({ default: upstream }),
      async (ask, plane) => {
        await t.step(
          "the forged address is replaced by the zone's",
          async () => {
            const answer = await ask("x.example. A");
            assert.equal(answer.rcode, "NOERROR");
            assert.deepEqual(answer.answer, [
              "x.example. 86400 IN CNAME www.home.test.",
              "www.home.test. 300 IN A 192.168.1.10",
            ]);
          },
        );
        await t.step(
          "nothing of it is cached: the next query asks again",
          async () => {
            const asked = upstream.seen.length;
            const answer = await ask("x.example. A");
            assert.deepEqual(
              answer.answer.at(-1),
              "www.home.test. 300 IN A 192.168.1.10",
            );
            assert.equal(upstream.seen.length, asked + 1);
            const cached = JSON.stringify(plane.cache.exportEntries());
            assert.ok(!cached.includes("x.example"), cached);
          },
        );
        await t.step(
          "kudurru answers the name itself with its own record",
          async () => {
            const answer = await ask("www.home.test. A");
            assert.equal(answer.aa, true);
            assert.deepEqual(answer.answer, [
              "www.home.test. 300 IN A 192.168.1.10",
            ]);
          },
        );
        await t.step(
          "a target the zone does not hold is NXDOMAIN with its SOA",
          async () => {
            const answer = await ask("gone.example. A");
            assert.equal(answer.rcode, "NXDOMAIN");
            assert.deepEqual(answer.answer, [
              "gone.example. 86400 IN CNAME nope.home.test.",
            ]);
            assert.equal(answer.authority.length, 1);
            assert.match(answer.authority[0]!, /^home\.test\. \d+ IN SOA /);
          },
        );
      },
    );
  } finally {
    await upstream.close();
  }
});

Deno.test("chain into a special-use name is answered as kudurru answers it", async () => {
  const upstream = scripted({
    "lo.example.": [
      "lo.example. 300 IN CNAME localhost.",
      "localhost. 300 IN A 6.6.6.6",
    ],
  });
  try {
    await withHandler(snapshotFor({ default: upstream }), async (ask) => {
      const answer = await ask("lo.example. A");
      assert.deepEqual(
        answer.answer.map((r) => r.split(" ").slice(3).join(" ")),
        [
          "CNAME localhost.",
          "A 127.0.0.1",
        ],
      );
    });
  } finally {
    await upstream.close();
  }
});

Deno.test("chain out of a conditional zone is resolved by the target's own group", async (t) => {
  const corp = scripted({
    "a.corp.example.": [
      "a.corp.example. 300 IN CNAME www.victim.example.",
      "www.victim.example. 300 IN A 6.6.6.6",
    ],
    "b.corp.example.": [
      "b.corp.example. 300 IN CNAME c.corp.example.",
      "c.corp.example. 300 IN A 10.0.0.3",
    ],
  });
  const internet = scripted({
    "www.victim.example.": ["www.victim.example. 300 IN A 192.0.2.80"],
  });
  try {
    const snapshot = snapshotFor({ default: internet, corp }, {
      "corp.example.": "corp",
    });
    await withHandler(snapshot, async (ask) => {
      await t.step(
        "the target's data comes from the default group",
        async () => {
          const answer = await ask("a.corp.example. A");
          assert.deepEqual(answer.answer, [
            "a.corp.example. 300 IN CNAME www.victim.example.",
            "www.victim.example. 300 IN A 192.0.2.80",
          ]);
          assert.deepEqual(
            internet.seen.map((s) => s.query.question?.name.toLowerCase()),
            ["www.victim.example."],
          );
        },
      );
      await t.step(
        "a chain inside the suffix is the corp group's answer",
        async () => {
          const answer = await ask("b.corp.example. A");
          assert.deepEqual(answer.answer, [
            "b.corp.example. 300 IN CNAME c.corp.example.",
            "c.corp.example. 300 IN A 10.0.0.3",
          ]);
          assert.equal(internet.seen.length, 1);
        },
      );
    });
  } finally {
    await corp.close();
    await internet.close();
  }
});

Deno.test("chain into a conditional zone is not taken from the default group", async () => {
  const corp = scripted({
    "intranet.corp.example.": ["intranet.corp.example. 300 IN A 10.0.0.9"],
  });
  const internet = scripted({
    "portal.example.": [
      "portal.example. 300 IN CNAME intranet.corp.example.",
      "intranet.corp.example. 300 IN A 6.6.6.6",
    ],
  });
  try {
    const snapshot = snapshotFor({ default: internet, corp }, {
      "corp.example.": "corp",
    });
    await withHandler(snapshot, async (ask) => {
      const answer = await ask("portal.example. A");
      assert.deepEqual(answer.answer, [
        "portal.example. 300 IN CNAME intranet.corp.example.",
        "intranet.corp.example. 300 IN A 10.0.0.9",
      ]);
    });
  } finally {
    await corp.close();
    await internet.close();
  }
});

Deno.test("chain within one route is passed on and cached as before", async () => {
  const upstream = scripted({
    "cdn.example.": [
      "cdn.example. 300 IN CNAME edge.example.",
      "edge.example. 300 IN A 192.0.2.44",
    ],
  });
  try {
    await withHandler(snapshotFor({ default: upstream }), async (ask) => {
      const first = await ask("cdn.example. A");
      const second = await ask("cdn.example. A");
      assert.deepEqual(
        first.answer.map((r) => r.split(" ").slice(3).join(" ")),
        [
          "CNAME edge.example.",
          "A 192.0.2.44",
        ],
      );
      assert.deepEqual(second.answer.length, 2);
      assert.equal(
        upstream.seen.length,
        1,
        "the second answer came from the cache",
      );
    });
  } finally {
    await upstream.close();
  }
});
