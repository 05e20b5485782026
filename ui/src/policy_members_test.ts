import assert from "node:assert/strict";
import {
  guessKind,
  isCidr,
  isIP,
  memberKind,
  memberValue,
  parseMember,
  probeAddress,
  sameMember,
} from "./policy_members.ts";

Deno.test("addresses and networks, v4 and v6", () => {
  for (
    const ip of [
      "192.168.1.20",
      "0.0.0.0",
      "::",
      "::1",
      "fd00::2",
      "::ffff:10.0.0.1",
    ]
  ) {
    assert.ok(isIP(ip), ip);
  }
  for (
    const bad of [
      "256.1.1.1",
      "1.2.3",
      "01.2.3.4",
      "1:2",
      "host",
      "fe80::1%eth0",
    ]
  ) {
    assert.ok(!isIP(bad), bad);
  }
  for (const cidr of ["192.168.1.0/24", "0.0.0.0/0", "::/0", "fd00::/8"]) {
    assert.ok(isCidr(cidr), cidr);
  }
  for (
    const bad of [
      "192.168.1.0/33",
      "::/129",
      "10.0.0.0/",
      "10.0.0.0/8/1",
      "x/8",
    ]
  ) {
    assert.ok(!isCidr(bad), bad);
  }
});

Deno.test("guessKind: an address, a network, a MAC, else a host name", () => {
  assert.equal(guessKind(" 192.168.1.20 "), "ip");
  assert.equal(guessKind("fd00::2"), "ip");
  assert.equal(guessKind("192.168.1.128/26"), "cidr");
  assert.equal(guessKind("AA:bb:cc:dd:ee:ff"), "mac");
  assert.equal(guessKind("tablet-*.lan"), "hostname");
});

Deno.test("parseMember: typed text to a member, with its label", () => {
  assert.deepEqual(parseMember("auto", " 10.0.0.0/8 ", " office "), {
    member: { cidr: "10.0.0.0/8", name: "office" },
  });
  assert.deepEqual(parseMember("clientID", "kids-phone"), {
    member: { clientID: "kids-phone" },
  });
  assert.deepEqual(parseMember("nameGlob", "Anna's *"), {
    member: { nameGlob: "Anna's *" },
  });
});

Deno.test("parseMember: says what is wrong", () => {
  assert.deepEqual(parseMember("auto", "  "), { error: "Type a member." });
  assert.deepEqual(parseMember("ip", "192.168.1.0/24"), {
    error: "Not an IP address.",
  });
  assert.deepEqual(parseMember("auto", "10.0.0.0/40"), {
    error: "Not a network such as 192.168.1.0/24.",
  });
  assert.deepEqual(parseMember("clientID", "Kids Phone"), {
    error: "1 to 63 lowercase letters, digits or '-'.",
  });
  assert.deepEqual(parseMember("auto", "tablet one"), {
    error: "A host name, with * or ? as wildcards.",
  });
  assert.deepEqual(parseMember("mac", "aa:bb:cc"), {
    error: "Not a MAC address such as aa:bb:cc:dd:ee:ff.",
  });
});

Deno.test("memberKind, memberValue and sameMember read the one matcher", () => {
  const mac = { mac: "AA:BB:CC:DD:EE:FF", name: "tv" };
  assert.equal(memberKind(mac), "mac");
  assert.equal(memberValue(mac), "AA:BB:CC:DD:EE:FF");
  assert.ok(sameMember(mac, { mac: "aa:bb:cc:dd:ee:ff" }));
  assert.ok(!sameMember({ ip: "10.0.0.1" }, { cidr: "10.0.0.1" }));
  assert.equal(memberKind({ name: "no matcher" }), undefined);
});

Deno.test("probeAddress: an address in the group to ask why with", () => {
  assert.equal(
    probeAddress([{ cidr: "10.0.0.0/8" }, { ip: "192.168.1.7" }]),
    "192.168.1.7",
  );
  assert.equal(probeAddress([{ cidr: "0.0.0.0/0" }]), "0.0.0.1");
  assert.equal(probeAddress([{ cidr: "192.168.1.130/26" }]), "192.168.1.129");
  assert.equal(probeAddress([{ cidr: "192.168.1.7/32" }]), "192.168.1.7");
  assert.equal(probeAddress([{ cidr: "::/0" }]), "::1");
  assert.equal(probeAddress([{ cidr: "fd00:1::/64" }]), "fd00:1::1");
  assert.equal(
    probeAddress([{ hostname: "tablet-*" }, { mac: "aa:bb:cc:dd:ee:ff" }]),
    undefined,
  );
});
