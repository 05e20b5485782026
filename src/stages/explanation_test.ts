/**
 * Explaining a query through the standard data plane: what a client would
 * get and why, with nothing sent upstream, nothing counted and nothing
 * logged. Real resolver, a scripted upstream that records what it sees.
 */
import assert from "node:assert/strict";
import type { QueryInfo } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { TYPE } from "../dns/wire/constants.ts";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { encodeQuery } from "../testing/query_bytes.ts";
import {
  type ScriptedServer,
  startUdpUpstream,
  urlOf,
} from "../upstream/testdata/scripted_upstream.ts";
import { rrsets, upstreamsOf } from "./upstream/testdata/upstream_fixtures.ts";
import { cacheSchema, ratelimitSchema } from "../config/schema_resolver.ts";
import { createDataPlane } from "./data_plane.ts";

const HOME = zoneFromText("home.test.", [
  "home.test. 3600 IN SOA ns.home.test. admin.home.test. 5 7200 3600 1209600 300",
  "home.test. 3600 IN NS ns.home.test.",
  "ns.home.test. 3600 IN A 192.168.1.1",
  "www.home.test. 300 IN A 192.168.1.10",
]);

function upstreamAnswering(name: string, line: string): ScriptedServer {
  return startUdpUpstream((query: QueryInfo) => {
    const question = query.question!;
    const known = question.name.toLowerCase() === name;
    return [{
      message: encodeResponse({
        id: query.id,
        opcode: 0,
        rcode: known ? 0 : 3,
        rd: true,
        ra: true,
        question,
        answer: rrsets(known ? [line] : []),
      }, 65535),
    }];
  });
}

function snapshotWith(main: ScriptedServer, corp: ScriptedServer): Snapshot {
  return {
    ...snapshotOf([HOME]),
    settings: {
      upstreams: upstreamsOf({
        groups: {
          default: { servers: [urlOf("udp", main)], timeout: "1s" },
          corp: { servers: [urlOf("udp", corp)], timeout: "1s" },
        },
        conditional: { "corp.example.": "corp" },
      }),
      cache: cacheSchema.parse({}),
      ratelimit: ratelimitSchema.parse({}),
    },
  };
}

Deno.test("explain says what a client would get and why, and asks no upstream", async (t) => {
  const main = upstreamAnswering(
    "x.example.",
    "x.example. 600 IN A 192.0.2.80",
  );
  const corp = upstreamAnswering(
    "db.corp.example.",
    "db.corp.example. 60 IN A 10.0.0.5",
  );
  const plane = createDataPlane({ logger: memoryLogger() });
  plane.handler.setSnapshot(snapshotWith(main, corp));
  try {
    await t.step(
      "a name of our zone: the authoritative answer and the zone",
      async () => {
        const why = await plane.explain({
          name: "WWW.home.test.",
          type: TYPE.A,
        }, "192.0.2.7");
        assert.equal(why.name, "www.home.test.");
        assert.equal(why.type, "A");
        assert.equal(why.client, "192.0.2.7");
        assert.equal(why.stage, "authoritative");
        assert.equal(why.status, "authoritative");
        assert.equal(why.rcode, "NOERROR");
        assert.equal(why.zone, "home.test.");
        assert.match(why.answer, /192\.168\.1\.10/);
        assert.equal(why.route, undefined);
      },
    );

    await t.step(
      "not cached: where it would be forwarded, and nothing is sent",
      async () => {
        const why = await plane.explain(
          { name: "x.example.", type: TYPE.A },
          "192.0.2.7",
        );
        assert.equal(why.stage, "upstream");
        assert.deepEqual(why.route, { group: "default", rule: "default" });
        assert.equal(why.answer, "");
        const conditional = await plane.explain(
          { name: "db.corp.example.", type: TYPE.A },
          "192.0.2.7",
        );
        assert.deepEqual(conditional.route, {
          group: "corp",
          rule: "conditional",
          suffix: "corp.example.",
        });
        assert.equal(main.seen.length, 0, "the default upstream was asked");
        assert.equal(corp.seen.length, 0, "the conditional upstream was asked");
      },
    );

    await t.step(
      "once a client asked: the cached answer, counted and logged once",
      async () => {
        const before = plane.counters.drain();
        const bytes = await plane.handler.handle(encodeQuery("x.example. A"), {
          address: "192.0.2.7",
          port: 40000,
          transport: "udp",
        });
        assert.ok(bytes !== null);
        assert.equal(main.seen.length, 1);
        const why = await plane.explain(
          { name: "x.example.", type: TYPE.A },
          "192.0.2.9",
        );
        assert.equal(why.status, "cached");
        assert.equal(why.stage, "cache");
        assert.match(why.answer, /A 192\.0\.2\.80/);
        assert.equal(
          main.seen.length,
          1,
          "explaining asked the upstream again",
        );
        const queries = (batch: typeof before) =>
          Object.values(batch.queries).reduce((a, n) => a + (n ?? 0), 0);
        assert.equal(
          queries(plane.counters.drain()),
          1,
          "only the client's query is counted",
        );
        assert.equal(queries(before), 0);
        assert.equal(
          plane.events!.drain().events.count,
          1,
          "only the client's query is logged",
        );
      },
    );

    await t.step("a malformed question is explained, not thrown", async () => {
      const why = await plane.explain(
        { name: "x.example.", type: TYPE.OPT },
        "192.0.2.7",
      );
      assert.equal(why.stage, "ingress");
      assert.equal(why.rcode, "FORMERR");
    });
  } finally {
    await plane.close();
    await main.close();
    await corp.close();
  }
});
