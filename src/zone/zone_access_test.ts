import assert from "node:assert/strict";
import { ACCESS_MODES } from "../api/v1alpha1/dnszone.ts";
import { compileAccess } from "./zone_access.ts";

Deno.test("zone access: deny, allow, and private networks", () => {
  assert.equal(compileAccess("deny")("10.0.0.1"), false);
  assert.equal(compileAccess("allow")("203.0.113.9"), true);
  const only = compileAccess("allowOnlyPrivate");
  for (
    const client of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.20",
      "100.64.0.1",
      "127.0.0.1",
      "169.254.1.1",
      "::1",
      "fd00::5",
      "fe80::1",
      "::ffff:192.168.1.20",
    ]
  ) {
    assert.equal(only(client), true, client);
  }
  for (
    const client of [
      "172.32.0.1",
      "11.0.0.1",
      "192.0.2.1",
      "2001:db8::1",
      "::ffff:8.8.8.8",
      "not an address",
    ]
  ) {
    assert.equal(only(client), false, client);
  }
});

Deno.test("zone access: an access list decides by its first matching entry, ! refuses, no match refuses", () => {
  const acl = compileAccess("useNetworkACL", [
    "!10.0.0.2",
    "10.0.0.0/8",
    "2001:db8::/32",
    "!192.168.0.0/16",
    "192.168.1.5",
  ]);
  assert.equal(acl("10.0.0.2"), false, "refused before the network allows it");
  assert.equal(acl("10.0.0.3"), true);
  assert.equal(acl("::ffff:10.9.9.9"), true, "IPv4-mapped counts as IPv4");
  assert.equal(acl("2001:db8:1::1"), true);
  assert.equal(acl("192.168.1.5"), false, "the earlier ! wins");
  assert.equal(acl("172.16.0.1"), false, "no match refuses");
  assert.equal(compileAccess("useNetworkACL", [])("10.0.0.1"), false);
});

Deno.test("zone access: the zone's name servers, alone or with the list", () => {
  const servers = ["192.0.2.53", "2001:db8::53"];
  const only = compileAccess("allowOnlyZoneNameServers", [], servers);
  assert.equal(only("192.0.2.53"), true);
  assert.equal(only("2001:db8::53"), true);
  assert.equal(only("192.0.2.54"), false);
  const both = compileAccess(
    "zoneNameServersAndACL",
    ["198.51.100.0/24"],
    servers,
  );
  assert.equal(both("192.0.2.53"), true);
  assert.equal(both("198.51.100.7"), true);
  assert.equal(both("203.0.113.1"), false);
  // Every mode the schema accepts compiles.
  for (const mode of ACCESS_MODES) {
    assert.equal(typeof compileAccess(mode)("127.0.0.1"), "boolean", mode);
  }
});
