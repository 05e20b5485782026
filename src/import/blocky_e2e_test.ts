/**
 * End to end: blocky's documented config.yml imported and its objects
 * served by a real kudurru. The test changes only what cannot run here:
 * list URLs point at a loopback server the test runs, the CIDR client
 * group becomes 127.0.0.2 (a source address the test can bind), the
 * default group keeps only "ads" and the list schedules are dropped, so
 * what 127.0.0.2 gets and 127.0.0.1 does not is the group's own list, at
 * any time of day.
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { query } from "../testing/dns_client.ts";
import { freePort } from "../testing/free_port.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { importBlocky } from "./blocky.ts";

const CONFIG = new URL(
  "../../../shared/data/imports/blocky/config.yml",
  import.meta.url,
);

const SPECIAL_NAME = "fakenews.example";

/** config.yml with loopback list URLs and 127.0.0.2 as the special group's client. */
async function testConfig(listPort: number): Promise<string> {
  const doc = YAML.parse(await Deno.readTextFile(CONFIG));
  const lists = doc.blocking.denylists as Record<string, string[]>;
  for (const [group, sources] of Object.entries(lists)) {
    lists[group] = sources.map((s, i) =>
      s.startsWith("http")
        ? `http://127.0.0.1:${listPort}/${group}/${i}.txt`
        : s
    );
  }
  const groups = doc.blocking.clientGroupsBlock;
  groups["127.0.0.2"] = groups["192.168.178.1/24"];
  delete groups["192.168.178.1/24"];
  groups.default = ["ads"];
  delete doc.blocking.listSchedules;
  return YAML.stringify(doc);
}

Deno.test({
  name:
    "blocky config.yml imported: customDNS with subdomains, a client group's deny list",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const lists = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req) =>
        new Response(
          new URL(req.url).pathname.startsWith("/special/")
            ? `0.0.0.0 ${SPECIAL_NAME}\n`
            : "0.0.0.0 tracker.example\n",
        ),
    );
    try {
      const yaml = await testConfig(lists.addr.port);
      const result = await importBlocky(
        "config.yml",
        () => Promise.resolve(new TextEncoder().encode(yaml)),
      );
      await using kudurru = await startKudurru({
        objects: result.objects,
        readyZone: "printer.lan.",
        upstreamPort: freePort(),
      });
      const port = kudurru.port;
      for (const name of ["printer.lan", "my.printer.lan"]) {
        const answer = await query(port, name, "A");
        assert.equal(answer.rcode, "NOERROR", name);
        assert.deepEqual(answer.answers.map((a) => a.data), ["192.168.178.3"]);
      }
      const aaaa = await query(port, "any.sub.printer.lan", "AAAA");
      assert.deepEqual(aaaa.answers.map((a) => a.data), [
        "2001:db8:85a3:8d3:1319:8a2e:370:7344",
      ]);
      // The inline rule of "ads", which the default group has.
      const ads = await query(port, "someadsdomain.com", "A");
      assert.deepEqual(ads.answers.map((a) => a.data), ["0.0.0.0"]);
      // "special" (downloaded from the loopback list server) blocks for 127.0.0.2 only.
      let blocked: string[] = [];
      for (let i = 0; i < 40 && blocked[0] !== "0.0.0.0"; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 250));
        const reply = await query(port, SPECIAL_NAME, "A", {
          from: "127.0.0.2",
          timeoutMs: 4000,
        });
        blocked = reply.answers.map((a) => String(a.data));
      }
      assert.deepEqual(blocked, ["0.0.0.0"], kudurru.output().slice(-2000));
      const other = await query(port, SPECIAL_NAME, "A", { timeoutMs: 4000 });
      assert.ok(
        !other.answers.some((a) => a.data === "0.0.0.0"),
        `127.0.0.1 is not in the special group: ${JSON.stringify(other)}`,
      );
    } finally {
      await lists.shutdown();
    }
  },
});
