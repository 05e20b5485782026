import assert from "node:assert/strict";
import { clientAddressKey } from "./client_address.ts";

Deno.test("clientAddressKey counts IPv4 per address and IPv6 per /64", async (t) => {
  const cases: [string, string][] = [
    ["192.0.2.1", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::ffff:c000:201", "192.0.2.1"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002:0000:0000:0000:0001", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["::1", "::/64"],
    ["2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["/run/kudurru/kudurru.sock", "/run/kudurru/kudurru.sock"],
    ["", ""],
    ["010.0.0.1", "010.0.0.1"], // not an address kudurru reads: its own key
    ["x".repeat(500), "x".repeat(128)],
  ];
  for (const [address, want] of cases) {
    await t.step(
      address.slice(0, 40) || "(empty)",
      () => assert.equal(clientAddressKey(address), want),
    );
  }
});
