import assert from "node:assert/strict";
import {
  assertIssue,
  type InvalidCase,
  mustValidate,
} from "./testdata/issue_table.ts";

function group(...clients: unknown[]) {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "ClientGroup",
    metadata: { name: "kids", namespace: "dns" },
    spec: { clients },
  };
}

Deno.test("ClientGroup accepts every client matcher", async (t) => {
  const rows: [string, unknown][] = [
    ["ipv4", { ip: "10.0.0.5" }],
    ["ipv6", { ip: "fd00::5" }],
    ["cidr", { cidr: "10.0.20.0/24", name: "Kids VLAN", comment: "wifi" }],
    ["mac with colons", { mac: "aa:bb:cc:dd:ee:ff" }],
    ["mac with dashes", { mac: "AA-BB-CC-DD-EE-FF" }],
    ["clientID", { clientID: "laptop-1" }],
    ["hostname glob", { hostname: "ps5*" }],
    ["nameGlob", { nameGlob: "Kid's *" }],
  ];
  for (const [name, client] of rows) {
    await t.step(name, () => void mustValidate(group(client)));
  }
});

Deno.test("ClientGroup defaults clients to an empty list", () => {
  const obj = mustValidate({ ...group(), spec: {} });
  assert.deepEqual(obj.spec, { clients: [] });
});

Deno.test("ClientGroup rejects invalid clients", async (t) => {
  const cases: InvalidCase[] = [
    {
      name: "no matcher",
      input: group({ name: "nobody" }),
      path: "spec.clients[0]",
      message:
        "must set exactly one of ip, cidr, mac, clientID, hostname, nameGlob",
    },
    {
      name: "two matchers",
      input: group({ ip: "10.0.0.1", mac: "aa:bb:cc:dd:ee:ff" }),
      path: "spec.clients[0]",
      message:
        "must set exactly one of ip, cidr, mac, clientID, hostname, nameGlob, got ip and mac",
    },
    {
      name: "short IPv4",
      input: group({ ip: "10.1" }),
      path: "spec.clients[0].ip",
      message: 'must be an IP address such as "10.0.0.1" or "fd00::1"',
    },
    {
      name: "CIDR prefix too long",
      input: group({ cidr: "10.0.0.0/40" }),
      path: "spec.clients[0].cidr",
      message: 'must be a network in CIDR notation such as "10.0.0.0/8"',
    },
    {
      name: "CIDR without prefix",
      input: group({ cidr: "10.0.0.0" }),
      path: "spec.clients[0].cidr",
      message: 'must be a network in CIDR notation such as "10.0.0.0/8"',
    },
    {
      name: "MAC with five octets",
      input: group({ mac: "aa:bb:cc:dd:ee" }),
      path: "spec.clients[0].mac",
      message: 'must be a MAC address such as "aa:bb:cc:dd:ee:ff"',
    },
    {
      name: "clientID with upper case",
      input: group({ clientID: "Laptop" }),
      path: "spec.clients[0].clientID",
      message: "must be 1-63 lowercase letters, digits or '-'",
    },
    {
      name: "more than 1000 clients",
      input: group(...Array.from({ length: 1001 }, () => ({ ip: "10.0.0.1" }))),
      path: "spec.clients",
      message: "must have at most 1000 items",
    },
  ];
  for (const c of cases) await t.step(c.name, () => assertIssue(c));
});
