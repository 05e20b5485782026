/**
 * An import served by a real kudurru: the schema-28 AdGuard Home file, its
 * filter URLs pointed at a list this test serves on loopback and one
 * persistent client given 127.0.0.2 with filtering off. The rewrite must
 * answer, a custom rule must block for everyone else, and the client's own
 * Policy must let the name through to the upstream (a stub here).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import dnsPacket from "dns-packet";
import YAML from "yaml";
import { freePort } from "../testing/free_port.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { query } from "../testing/dns_client.ts";
import { untilPasses } from "../testing/until_passes.ts";
import { importAdguard } from "./adguard.ts";

const V28 = new URL(
  "../../../shared/data/imports/adguardhome/AdGuardHome.adguardhome-sync-e2e.yaml",
  import.meta.url,
).pathname;

/** What the stub upstream answers for every A question. */
const UPSTREAM_ADDRESS = "192.0.2.53";

/** A UDP upstream on loopback answering every A question with one address. */
function stubUpstream(port: number): { close(): Promise<void> } {
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port,
  });
  const done = (async () => {
    try {
      for await (const [bytes, from] of socket) {
        const q = dnsPacket.decode(Buffer.from(bytes));
        const question = q.questions?.[0];
        if (question === undefined) continue;
        const reply = dnsPacket.encode({
          id: q.id,
          type: "response",
          flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
          questions: q.questions,
          answers: question.type === "A"
            ? [{
              name: question.name,
              type: "A",
              ttl: 60,
              data: UPSTREAM_ADDRESS,
            }]
            : [],
        });
        await socket.send(reply, from);
      }
    } catch {
      // closed
    }
  })();
  return {
    async close() {
      socket.close();
      await done;
    },
  };
}

Deno.test({
  name: "adguard e2e: a rewrite answers, a client's own policy applies",
  async fn() {
    const lists = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("||listed.example^\n"),
    );
    const listUrl = `http://127.0.0.1:${lists.addr.port}/filter.txt`;
    const dir = await Deno.makeTempDir({ prefix: "kudurru-adguard-e2e-" });
    const upstreamPort = freePort();
    const upstream = stubUpstream(upstreamPort);
    try {
      const config = YAML.parse(await Deno.readTextFile(V28));
      for (const filter of config.filters) filter.url = listUrl;
      config.clients.persistent.push({
        name: "Kid tablet",
        ids: ["127.0.0.2"],
        use_global_settings: false,
        filtering_enabled: false,
      });
      const file = join(dir, "AdGuardHome.yaml");
      await Deno.writeTextFile(file, YAML.stringify(config));
      const { objects } = await importAdguard(file);
      assert.ok(
        objects.some((o) =>
          o.kind === "Policy" && o.metadata.name === "kid-tablet"
        ),
      );

      await using server = await startKudurru({
        objects,
        readyZone: "foo.com.",
        upstreamPort,
      });
      const rewrite = await query(server.port, "foo.com", "A");
      assert.equal(rewrite.rcode, "NOERROR");
      assert.deepEqual(rewrite.answers.map((a) => a.data), ["1.2.3.4"]);

      // `||facebook.com^$important` from user_rules blocks (zeroIP)…
      await untilPasses(async () => {
        const blocked = await query(server.port, "www.facebook.com", "A");
        assert.deepEqual(blocked.answers.map((a) => a.data), ["0.0.0.0"]);
      });
      // …but not for the client whose AdGuard filtering was off.
      const kid = await query(server.port, "www.facebook.com", "A", {
        from: "127.0.0.2",
      });
      assert.equal(kid.rcode, "NOERROR");
      assert.deepEqual(kid.answers.map((a) => a.data), [UPSTREAM_ADDRESS]);
    } finally {
      await upstream.close();
      await lists.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
