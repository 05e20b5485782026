import assert from "node:assert/strict";
import { query } from "../../src/testing/dns_client.ts";
import { startNsd } from "../../tests/interop/peers.ts";
import { dnsmasqArgs, startDnsmasq } from "./dnsmasq.ts";
import {
  RESOLVER_ZONE,
  resolverAddress,
  resolverName,
  resolverZoneText,
} from "./resolver_zone.ts";

Deno.test("dnsmasqArgs reads no system files and forwards only to the given port", () => {
  const args = dnsmasqArgs({ port: 5300, upstreamPort: 5301 });
  for (const flag of ["--no-resolv", "--no-hosts", "--conf-file=/dev/null"]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.deepEqual(args.filter((a) => a.startsWith("--server")), [
    "--server=127.0.0.1#5301",
  ]);
  assert.ok(args.includes("--port=5300"));
  assert.ok(
    !args.includes("--no-daemon"),
    "debug mode changes what we measure",
  );
});

Deno.test({
  name: "startDnsmasq answers from NSD and then from its cache",

  async fn() {
    await using nsd = await startNsd([
      { name: RESOLVER_ZONE, text: resolverZoneText(10) },
    ]);
    const dnsmasq = await startDnsmasq(nsd.port, RESOLVER_ZONE);
    try {
      const first = await query(dnsmasq.port, resolverName(3), "A");
      assert.equal(first.answers[0]?.data, resolverAddress(3));
      await nsd.stop();
      const cached = await query(dnsmasq.port, resolverName(3), "A");
      assert.equal(cached.answers[0]?.data, resolverAddress(3));
      assert.ok(cached.answers[0]!.ttl <= 3600);
    } finally {
      await dnsmasq.stop();
    }
  },
});
