import assert from "node:assert/strict";
import type { Client } from "../../api/v1alpha1/clientgroup.ts";
import type { ClientGroupData } from "../blocking_snapshot.ts";
import { buildGroupIndex } from "./group_index.ts";

const group = (key: string, ...clients: Client[]): ClientGroupData => ({
  key,
  clients,
});

/** The seeded ClientGroup/default: matches everything. */
const DEFAULT = group("kudurru/default", { cidr: "0.0.0.0/0" }, {
  cidr: "::/0",
});

const GROUPS: ClientGroupData[] = [
  DEFAULT,
  group("home/lan", { cidr: "192.168.0.0/16" }),
  group("home/kids", { cidr: "192.168.1.0/24" }, { cidr: "fd00:1::/64" }),
  group("home/tv", { ip: "192.168.1.50" }, { ip: "fd00:1::50" }),
  group("home/guests", { cidr: "192.168.1.128/25" }),
  group("home/phone", { clientID: "phone-anna" }),
  group("home/laptops", { hostname: "laptop-*.lan" }),
  group("home/consoles", { hostname: "console-[0-9]?" }),
  group("home/macs", { mac: "aa:bb:cc:dd:ee:ff" }, { nameGlob: "tv*" }),
];

Deno.test("group index: which groups a client is in", async (t) => {
  const index = buildGroupIndex(GROUPS);
  const cases: {
    name: string;
    address: string;
    clientId?: string;
    hostname?: string | null;
    want: string[];
  }[] = [
    {
      name: "only the catch-all covers an unknown client",
      address: "203.0.113.9",
      want: ["kudurru/default"],
    },
    {
      name: "catch-all for IPv6 too",
      address: "2001:db8::1",
      want: ["kudurru/default"],
    },
    {
      name: "a /16 beats the /0",
      address: "192.168.7.1",
      want: ["home/lan"],
    },
    {
      name: "a /24 beats the /16",
      address: "192.168.1.9",
      want: ["home/kids"],
    },
    {
      name: "a /25 beats the /24",
      address: "192.168.1.200",
      want: ["home/guests"],
    },
    {
      name: "an exact IP beats every network",
      address: "192.168.1.50",
      want: ["home/tv"],
    },
    {
      name: "an exact IPv6 address beats its /64",
      address: "fd00:1:0:0::50",
      want: ["home/tv"],
    },
    {
      name: "IPv6 /64",
      address: "fd00:1::99",
      want: ["home/kids"],
    },
    {
      name: "an IPv4-mapped IPv6 address is matched as IPv4",
      address: "::ffff:192.168.1.50",
      want: ["home/tv"],
    },
    {
      name: "client ID alone replaces the catch-all",
      address: "203.0.113.9",
      clientId: "phone-anna",
      want: ["home/phone"],
    },
    {
      name: "client ID is case-insensitive",
      address: "203.0.113.9",
      clientId: "Phone-ANNA",
      want: ["home/phone"],
    },
    {
      name: "client ID and address groups are united",
      address: "192.168.1.9",
      clientId: "phone-anna",
      want: ["home/kids", "home/phone"],
    },
    {
      name: "an unknown client ID changes nothing",
      address: "203.0.113.9",
      clientId: "someone",
      want: ["kudurru/default"],
    },
    {
      name: "hostname glob with *, trailing dot and case ignored",
      address: "203.0.113.9",
      hostname: "Laptop-Anna.LAN.",
      want: ["home/laptops"],
    },
    {
      name: "* spans dots",
      address: "192.168.7.1",
      hostname: "laptop-x.kids.lan",
      want: ["home/lan", "home/laptops"],
    },
    {
      name: "[0-9]? needs a digit and one more character",
      address: "203.0.113.9",
      hostname: "console-7a",
      want: ["home/consoles"],
    },
    {
      name: "a glob must match the whole name",
      address: "203.0.113.9",
      hostname: "console-x7",
      want: ["kudurru/default"],
    },
    {
      name: "mac and nameGlob entries never match",
      address: "203.0.113.9",
      hostname: "tv-living",
      want: ["kudurru/default"],
    },
    {
      name: "a garbage address matches only by ID",
      address: "not-an-address",
      clientId: "phone-anna",
      want: ["home/phone"],
    },
    {
      name: "a garbage address without ID matches nothing",
      address: "not-an-address",
      want: [],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.deepEqual(index.match(c.address, c.clientId, c.hostname), c.want);
    });
  }
});

Deno.test("group index: no catch-all group means no groups", () => {
  const index = buildGroupIndex([group("a/lan", { cidr: "10.0.0.0/8" })]);
  assert.deepEqual(index.match("192.0.2.1"), []);
  assert.deepEqual(index.match("10.1.2.3"), ["a/lan"]);
});

Deno.test("group index: ties at one prefix make both members, with a diagnosis", () => {
  const index = buildGroupIndex([
    group("a/one", { cidr: "10.0.0.0/24" }),
    group("a/two", { cidr: "10.0.0.7/24" }), // host bits: the same network
    group("a/three", { ip: "10.0.0.9" }),
    group("a/four", { cidr: "10.0.0.9/32" }), // an ip is a /32
    group("a/five", { cidr: "fd00::/8" }, { cidr: "fd00::/8" }),
  ]);
  assert.deepEqual(index.match("10.0.0.1"), ["a/one", "a/two"]);
  assert.deepEqual(index.match("10.0.0.9"), ["a/three", "a/four"]);
  assert.deepEqual(index.match("fd12::1"), ["a/five"]);
  assert.deepEqual(index.diagnoses, [
    "ClientGroups a/three, a/four all list 10.0.0.9/32; clients in it belong to each of them",
    "ClientGroups a/one, a/two all list 10.0.0.0/24; clients in it belong to each of them",
  ]);
});

Deno.test("group index: IPv4-mapped networks become IPv4 ones", () => {
  const index = buildGroupIndex([
    group("a/mapped", { cidr: "::ffff:10.0.0.0/104" }),
    group("a/host", { ip: "::ffff:10.9.9.9" }),
  ]);
  assert.deepEqual(index.match("10.1.1.1"), ["a/mapped"]);
  assert.deepEqual(index.match("10.9.9.9"), ["a/host"]);
  assert.deepEqual(index.match("11.0.0.1"), []);
});

Deno.test("group index: needsHostnames and never-matching entries", () => {
  assert.equal(buildGroupIndex(GROUPS).needsHostnames, true);
  const plain = buildGroupIndex([
    DEFAULT,
    group("a/mac", { mac: "aa:bb:cc:dd:ee:ff" }),
    group("a/phone", { clientID: "phone-anna" }),
  ]);
  assert.equal(plain.needsHostnames, false);
  assert.deepEqual(plain.diagnoses, [
    "ClientGroups a/mac have mac entries, which match no client yet (no source for them in this version)",
    "ClientGroups a/phone have clientID entries, which match no client yet (no source for them in this version)",
  ]);
});

Deno.test("group index: bad entries are reported, not thrown", () => {
  const index = buildGroupIndex([
    group("a/bad", { cidr: "10.0.0.0/33" }, { ip: "nope" }, {
      hostname: "x[z-a]",
    }),
    group("a/ok", { ip: "10.0.0.1" }),
  ]);
  assert.deepEqual(index.match("10.0.0.1"), ["a/ok"]);
  assert.equal(index.diagnoses.length, 3);
  assert.match(index.diagnoses[0]!, /a\/bad: "10.0.0.0\/33" is not/);
  assert.match(index.diagnoses[2]!, /hostname "x\[z-a\]" is not a valid glob/);
});
