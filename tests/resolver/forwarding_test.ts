/**
 * kudurru as the resolver a home network points at, against real servers:
 * NSD is authoritative for resolver.test., Unbound forwards to it, and
 * kudurru's default upstream group is Unbound. Then Unbound goes away, and
 * kudurru must keep answering from its cache (fresh and stale) and answer
 * SERVFAIL within 2 s for what it never saw.
 */
import assert from "node:assert/strict";
import { query } from "../../src/testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { startNsd } from "../interop/peers.ts";
import { startUnbound } from "./unbound.ts";

const ZONE = `$ORIGIN resolver.test.
@      300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@      300 IN NS  ns1
ns1    300 IN A   192.0.2.53
www    300 IN A   192.0.2.10
short    1 IN A   192.0.2.11
alias  300 IN CNAME www
`;

Deno.test({
  name:
    "resolver forwards to Unbound, caches, serves stale and fails fast when upstreams are gone",
  async fn() {
    await using nsd = await startNsd([{ name: "resolver.test.", text: ZONE }]);
    const unbound = await startUnbound(nsd.port, "resolver.test.");
    let unboundStopped = false;
    try {
      await using kudurru = await startKudurru({
        objects: [localReadyZoneObject()],
        readyZone: LOCAL_READY_ZONE,
        upstreamPort: unbound.port,
        extraConfig: { cache: { minTTL: "1s" } },
      });

      const www = await query(kudurru.port, "WWW.resolver.test.", "A");
      assert.equal(www.rcode, "NOERROR");
      assert.ok(www.flag_ra, "RA is set on forwarded answers");
      assert.ok(!www.flag_aa, "forwarded answers are not authoritative");
      assert.deepEqual(www.answers.map((r) => [r.name, r.data]), [[
        "WWW.resolver.test",
        "192.0.2.10",
      ]]);

      const viaTcp = await query(kudurru.port, "alias.resolver.test.", "A", {
        tcp: true,
      });
      assert.deepEqual(viaTcp.answers.map((r) => r.type), ["CNAME", "A"]);
      await query(kudurru.port, "short.resolver.test.", "A");

      await unbound.stop();
      unboundStopped = true;
      await new Promise((r) => setTimeout(r, 2_200)); // short.resolver.test. expires

      const cached = await query(kudurru.port, "www.resolver.test.", "A");
      assert.equal(cached.rcode, "NOERROR");
      assert.ok(
        cached.answers[0]!.ttl <= 300 && cached.answers[0]!.ttl >= 295,
        "TTL counts down",
      );

      const stale = await query(kudurru.port, "short.resolver.test.", "A", {
        timeoutMs: 4_000,
      });
      assert.equal(
        stale.rcode,
        "NOERROR",
        "an expired entry is served stale when upstreams fail",
      );
      assert.equal(stale.answers[0]?.data, "192.0.2.11");
      assert.equal(
        stale.answers[0]?.ttl,
        30,
        "stale answers carry serveStale.answerTTL",
      );

      const started = Date.now();
      const unknown = await query(kudurru.port, "nope.resolver.test.", "A", {
        timeoutMs: 4_000,
      });
      assert.equal(unknown.rcode, "SERVFAIL");
      assert.ok(
        Date.now() - started < 2_500,
        "a failed lookup is answered within about 2 s",
      );
    } finally {
      if (!unboundStopped) await unbound.stop();
    }
  },
});
