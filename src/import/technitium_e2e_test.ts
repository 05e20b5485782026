/**
 * End to end: a Technitium zone export
 * imported and served by a real kudurru: a record answers, the disabled
 * one does not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { query } from "../testing/dns_client.ts";
import { freePort } from "../testing/free_port.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { importTechnitium } from "./technitium.ts";

/** A zone export as Technitium's zone file writer lays it out (technitium_zone_export.ts). */
const ZONE_EXPORT = [
  "$ORIGIN example.com.",
  "@ 900 IN SOA ns1.example.com. hostmaster.example.com. 7 900 300 604800 900",
  "@ 3600 IN NS ns1.example.com.",
  "ns1 3600 IN A 192.0.2.53",
  "www 3600 IN A 192.0.2.10 ;web front",
  'old 3600 IN A 192.0.2.99 ;{"disabled":true,"comments":"retired"}',
  "corp 3600 IN FWD Udp 192.0.2.1 False DefaultProxy 0",
  "",
].join("\n");

Deno.test("importTechnitium: a zone export served by kudurru", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-technitium-e2e-" });
  try {
    await Deno.writeTextFile(join(dir, "example.com.zone"), ZONE_EXPORT);
    const { objects } = await importTechnitium(dir);
    await using server = await startKudurru({
      // The zone and its records; the FWD's upstream group is a setting.
      objects: objects.filter((o) =>
        o.kind === "DNSZone" || o.kind === "DNSRecordSet"
      ),
      readyZone: "example.com.",
      upstreamPort: freePort(),
    });
    const www = await query(server.port, "www.example.com", "A");
    assert.equal(www.rcode, "NOERROR");
    assert.ok(www.flag_aa);
    assert.deepEqual(www.answers.map((r) => r.data), ["192.0.2.10"]);
    const old = await query(server.port, "old.example.com", "A");
    assert.equal(old.rcode, "NXDOMAIN");
    assert.deepEqual(old.answers, []);
    const soa = await query(server.port, "example.com", "SOA");
    assert.equal(soa.answers[0]?.data.mname, "ns1.example.com");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
