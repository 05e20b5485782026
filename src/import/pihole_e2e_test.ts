/**
 * An import served by a real kudurru: the real pihole.toml and FTL's test
 * gravity database, the adlist URLs pointed at a list this test serves on
 * loopback. A `dns.hosts` name must answer with its address and an exact
 * deny entry must be blocked for the Default group's clients; the blocking
 * settings go in as kudurru.yaml settings.
 */
import assert from "node:assert/strict";
import { freePort } from "../testing/free_port.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { query } from "../testing/dns_client.ts";
import { untilPasses } from "../testing/until_passes.ts";
import { importPihole } from "./pihole.ts";
import { piholeDir } from "./pihole_fixture_test.ts";

Deno.test({
  name: "pihole e2e: a dns.hosts name answers, an exact deny is blocked",
  async fn() {
    const lists = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("listed.example\n"),
    );
    const listUrl = `http://127.0.0.1:${lists.addr.port}/list.txt`;
    try {
      await using fixture = await piholeDir();
      const { objects, settings } = await importPihole(fixture.dir);
      for (const o of objects) {
        if (o.kind !== "BlockList") continue;
        for (
          const source of (o.spec as { sources: { url?: string }[] })
            .sources
        ) {
          if (source.url !== undefined) source.url = listUrl;
        }
      }
      await using server = await startKudurru({
        objects,
        readyZone: "abc-custom.com.",
        upstreamPort: freePort(),
        extraConfig: { blocking: settings.blocking },
      });
      const host = await query(server.port, "abc-custom.com", "A");
      assert.equal(host.rcode, "NOERROR");
      assert.deepEqual(host.answers.map((a) => a.data), ["1.1.1.1"]);
      const idn = await query(server.port, "xn--ste-pla.com", "A");
      assert.deepEqual(idn.answers.map((a) => a.data), ["2.2.2.2"]);

      // denied.ftl (domainlist type 1, group Default): NULL mode → 0.0.0.0,
      // with Pi-hole's blockTTL of 2 s.
      await untilPasses(async () => {
        const blocked = await query(server.port, "denied.ftl", "A");
        assert.deepEqual(blocked.answers.map((a) => a.data), ["0.0.0.0"]);
        assert.equal(blocked.answers[0]!.ttl, 2);
      });
      // Exact: a name below it is not blocked (no upstream answers: SERVFAIL).
      const below = await query(server.port, "www.denied.ftl", "A");
      assert.notDeepEqual(below.answers.map((a) => a.data), ["0.0.0.0"]);
    } finally {
      await lists.shutdown();
    }
  },
});
