/**
 * End to end: the zones importBind reads from PowerDNS's regression
 * named.conf, served by a real kudurru (objects.d), answer as their zone
 * files say.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { query } from "../testing/dns_client.ts";
import { freePort } from "../testing/free_port.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { importBind } from "./bind.ts";

const CONF = fileURLToPath(
  new URL("../../../shared/data/imports/bind/pdns/named.conf", import.meta.url),
);

Deno.test("importBind: the PowerDNS zones served by kudurru", async () => {
  const { objects } = await importBind(CONF);
  await using server = await startKudurru({
    objects,
    readyZone: "test.com.",
    upstreamPort: freePort(),
  });
  const port = server.port;
  // test.com: `server1 IN A 1.2.3.4`, `www IN CNAME server1`.
  const a = await query(port, "server1.test.com", "A");
  assert.equal(a.rcode, "NOERROR");
  assert.ok(a.flag_aa);
  assert.deepEqual(a.answers.map((r) => [r.type, r.data]), [["A", "1.2.3.4"]]);
  const www = await query(port, "www.test.com", "A");
  assert.deepEqual(www.answers.map((r) => [r.name, r.type, r.data]), [
    ["www.test.com", "CNAME", "server1.test.com"],
    ["server1.test.com", "A", "1.2.3.4"],
  ]);
  // The SOA comes from the file's (its serial is kudurru's own).
  const soa = await query(port, "test.com", "SOA");
  assert.equal(soa.answers[0]?.data.mname, "ns1.test.com");
  assert.equal(soa.answers[0]?.data.rname, "ahu.example.com");
  assert.equal(soa.answers[0]?.data.minimum, 86400);
  const ns = await query(port, "test.com", "NS");
  assert.deepEqual(ns.answers.map((r) => r.data).sort(), [
    "ns1.test.com",
    "ns2.test.com",
  ]);
  // dnssec-parent.com: `@ IN A 9.9.9.9`; a name absent from the file.
  const apex = await query(port, "dnssec-parent.com", "A");
  assert.deepEqual(apex.answers.map((r) => r.data), ["9.9.9.9"]);
  const none = await query(port, "no-such-name.test.com", "A");
  assert.equal(none.rcode, "NXDOMAIN");
  // A zone whose file is missing is not served: no authoritative answer.
  const missing = await query(port, "example.com", "SOA", { rd: false });
  assert.ok(!missing.flag_aa);
});
