/**
 * `@@` lines that allow on their own, through a real `kudurru serve` with
 * NSD as the upstream: a list of exceptions only unbreaks a site whose
 * CNAME points at a blocked tracker, a default-mode list named in
 * allowListRefs allows through its `@@` lines (AdGuard Home's way to write
 * an allowlist), and `kudurru querylog` says which list and rule let each
 * answer through.
 */
import assert from "node:assert/strict";
import { query } from "../../src/testing/dns_client.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { startNsd } from "../interop/peers.ts";
import { cli, eventually, object } from "./e2e_helpers.ts";

const ZONE = `$ORIGIN lab.test.
@        300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@        300 IN NS  ns1
ns1      300 IN A   192.0.2.53
cloak    300 IN CNAME t.track
t.track  300 IN A   192.0.2.77
imp      300 IN A   192.0.2.78
`;

Deno.test("@@ lines allow on their own, and the query log says which one did", async () => {
  await using nsd = await startNsd([{ name: "lab.test.", text: ZONE }]);
  await using kudurru = await startKudurru({
    objects: [
      object("DNSZone", "local-test", {
        zoneName: "local.test.",
        type: "primary",
      }),
      object("BlockList", "edge", {
        sources: [{ inline: "||track.lab.test^\n||imp.lab.test^\n" }],
      }),
      object("BlockList", "fixes", {
        sources: [{ inline: "@@||cloak.lab.test^\n" }],
      }),
      object("BlockList", "myallow", {
        sources: [{ inline: "@@||imp.lab.test^\n" }],
      }),
      object("Policy", "edge", {
        clientGroupRefs: ["default"],
        blockListRefs: ["edge", "fixes"],
        allowListRefs: ["myallow"],
      }),
    ],
    readyZone: "local.test.",
    upstreamPort: nsd.port,
  });
  const ask = async (name: string) =>
    (await query(kudurru.port, name, "A")).answers.map((r) => r.data);

  assert.deepEqual(await ask("t.track.lab.test."), ["0.0.0.0"]);
  assert.deepEqual(await ask("cloak.lab.test."), [
    "t.track.lab.test",
    "192.0.2.77",
  ]);
  assert.deepEqual(await ask("imp.lab.test."), ["192.0.2.78"]);

  const table = () => cli("querylog", "--data-dir", kudurru.dataDir);
  await eventually("both allowed answers are in the query log", async () => {
    const text = await table();
    return text.includes("imp.lab.test.") && text.includes("cloak.lab.test.");
  });
  const text = await table();
  assert.match(
    text,
    /cloak\.lab\.test\.\s+A\s+(?:NOERROR\s+)?forwarded\s+allowed by fixes: @@\|\|cloak\.lab\.test\^/,
  );
  assert.match(
    text,
    /imp\.lab\.test\.\s+A\s+(?:NOERROR\s+)?forwarded\s+allowed by myallow: @@\|\|imp\.lab\.test\^/,
  );
  assert.match(
    text,
    /t\.track\.lab\.test\.\s+A\s+(?:NOERROR\s+)?blocked_list\s+edge:/,
  );
});
