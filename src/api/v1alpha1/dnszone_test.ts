import assert from "node:assert/strict";
import {
  assertIssue,
  type InvalidCase,
  mustValidate,
  withSpec,
} from "./testdata/issue_table.ts";
import type { DNSZoneSpec } from "./dnszone.ts";

const zone = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "DNSZone",
  metadata: { name: "example-org" },
  spec: { zoneName: "example.org.", type: "primary" },
};
const forwardZone = withSpec(zone, {
  type: "forward",
  forward: { upstreamGroup: "corp" },
});
const policy = (p: Record<string, unknown>) => withSpec(zone, { policy: p });

Deno.test("DNSZone accepts valid zones", async (t) => {
  const rows: [string, unknown][] = [
    ["minimal primary", zone],
    ["forward zone", forwardZone],
    ["root zone", withSpec(zone, { zoneName: "." })],
    [
      "query ACL with negation",
      policy({
        queryAccess: "useNetworkACL",
        queryACL: ["!10.0.0.2", "10.0.0.0/8", "fd00::/8", "192.0.2.1"],
      }),
    ],
    [
      "notify targets with ports",
      policy({
        notify: "both",
        notifyTargets: ["192.0.2.1", "192.0.2.2:5353", "[2001:db8::1]:53"],
      }),
    ],
    [
      "label selector",
      withSpec(zone, {
        recordSetSelector: { labelSelector: { matchLabels: { team: "web" } } },
      }),
    ],
  ];
  for (const [name, input] of rows) {
    await t.step(name, () => void mustValidate(input));
  }
});

Deno.test("DNSZone applies defaults", () => {
  const spec = mustValidate(
    withSpec(zone, {
      soa: { mname: "ns1.example.org.", rname: "h.example.org." },
    }),
  ).spec as DNSZoneSpec;
  assert.deepEqual(spec.policy, {
    queryAccess: "allow",
    zoneTransfer: "deny",
    notify: "none",
    update: "deny",
  });
  assert.equal(spec.defaultTTL, 300);
  assert.deepEqual(spec.soa, {
    mname: "ns1.example.org.",
    rname: "h.example.org.",
    refresh: 3600,
    retry: 900,
    expire: 1209600,
    minimum: 300,
  });
});

Deno.test("DNSZone defaults forward.dnssecValidation to false", () => {
  const spec = mustValidate(forwardZone).spec as DNSZoneSpec;
  assert.deepEqual(spec.forward, {
    upstreamGroup: "corp",
    dnssecValidation: false,
  });
});

Deno.test("DNSZone rejects invalid zones", async (t) => {
  const cases: InvalidCase[] = [
    {
      name: "zoneName without trailing dot",
      input: withSpec(zone, { zoneName: "example.org" }),
      path: "spec.zoneName",
      message: /not fully qualified/,
    },
    {
      name: "type from a later version",
      input: withSpec(zone, { type: "stub" }),
      path: "spec.type",
      message:
        'zone type "stub" arrives in a later version of kudurru; this version serves primary, forward and secondary zones',
    },
    {
      name: "unknown type",
      input: withSpec(zone, { type: "master" }),
      path: "spec.type",
      message: "must be one of: primary, forward, secondary",
    },
    {
      name: "secondary type without its primaries",
      input: withSpec(zone, { type: "secondary" }),
      path: "spec.secondary",
      message:
        "is required when type is secondary (set secondary.primaries to the addresses to transfer from)",
    },
    {
      name: "secondary settings on a primary zone",
      input: withSpec(zone, { secondary: { primaries: ["192.0.2.1"] } }),
      path: "spec.secondary",
      message: "must not be set when type is primary",
    },
    {
      name: "a primary that is not an address",
      input: withSpec(zone, {
        type: "secondary",
        secondary: { primaries: ["ns1.example.org"] },
      }),
      path: "spec.secondary.primaries[0]",
      message:
        'must be an IP address with an optional port such as "192.0.2.1", "192.0.2.1:5353" or "[2001:db8::1]:53"',
    },
    {
      name: "forward type without forward",
      input: withSpec(zone, { type: "forward" }),
      path: "spec.forward",
      message: "is required when type is forward (set forward.upstreamGroup)",
    },
    {
      name: "primary type with forward",
      input: withSpec(zone, { forward: { upstreamGroup: "corp" } }),
      path: "spec.forward",
      message: "must not be set when type is primary",
    },
    {
      name: "forward without upstreamGroup",
      input: withSpec(forwardZone, { forward: {} }),
      path: "spec.forward.upstreamGroup",
      message: "is required",
    },
    {
      name: "SOA mname not an FQDN",
      input: withSpec(zone, { soa: { mname: "ns1", rname: "h.example.org." } }),
      path: "spec.soa.mname",
      message: /not fully qualified/,
    },
    {
      name: "SOA refresh below bound",
      input: withSpec(zone, {
        soa: { mname: "ns1.example.org.", rname: "h.example.org.", refresh: 1 },
      }),
      path: "spec.soa.refresh",
      message: "must be at least 60",
    },
    {
      name: "nameserver not an FQDN",
      input: withSpec(zone, { nameservers: ["ns1.example.org"] }),
      path: "spec.nameservers[0]",
      message: /not fully qualified/,
    },
    {
      name: "defaultTTL too large",
      input: withSpec(zone, { defaultTTL: 2147483648 }),
      path: "spec.defaultTTL",
      message: "must be at most 2147483647",
    },
    {
      name: "queryAccess useNetworkACL without queryACL",
      input: policy({ queryAccess: "useNetworkACL" }),
      path: "spec.policy.queryACL",
      message: "must not be empty when queryAccess is useNetworkACL",
    },
    {
      name: "zoneTransfer zoneNameServersAndACL with empty transferACL",
      input: policy({ zoneTransfer: "zoneNameServersAndACL", transferACL: [] }),
      path: "spec.policy.transferACL",
      message: "must not be empty when zoneTransfer is zoneNameServersAndACL",
    },
    {
      name: "ACL entry not an address",
      input: policy({
        queryAccess: "useNetworkACL",
        queryACL: ["10.0.0.0/33"],
      }),
      path: "spec.policy.queryACL[0]",
      message:
        'must be an IP address or CIDR, optionally prefixed with "!" (e.g. "10.0.0.0/8", "!10.0.0.2")',
    },
    {
      name: "notify specified without targets",
      input: policy({ notify: "specified" }),
      path: "spec.policy.notifyTargets",
      message: "must not be empty when notify is specified",
    },
    {
      name: "notify target with a bad port",
      input: policy({ notify: "both", notifyTargets: ["192.0.2.1:70000"] }),
      path: "spec.policy.notifyTargets[0]",
      message:
        'must be an IP address with an optional port such as "192.0.2.1", "192.0.2.1:5353" or "[2001:db8::1]:53"',
    },
    {
      name: "unknown access mode",
      input: policy({ update: "sometimes" }),
      path: "spec.policy.update",
      message:
        "must be one of: deny, allow, allowOnlyPrivate, allowOnlyZoneNameServers, useNetworkACL, zoneNameServersAndACL",
    },
    {
      name: "v0.2 publish field",
      input: withSpec(zone, { publish: [] }),
      path: "spec.publish",
      message: "unknown field",
    },
    {
      name: "serial beyond uint32",
      input: { ...zone, status: { serial: 4294967296 } },
      path: "status.serial",
      message: "must be at most 4294967295",
    },
    {
      name: "namespace on a cluster-scoped kind",
      input: { ...zone, metadata: { name: "example-org", namespace: "dns" } },
      path: "metadata.namespace",
      message: "must be absent: DNSZone is cluster-scoped",
    },
  ];
  for (const c of cases) await t.step(c.name, () => assertIssue(c));
});
