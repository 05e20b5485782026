import assert from "node:assert/strict";
import {
  assertIssue,
  type InvalidCase,
  mustValidate,
} from "./testdata/issue_table.ts";

type EndpointInput = Record<string, unknown>;

function recordSet(...endpoints: EndpointInput[]) {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: { name: "web", namespace: "apps" },
    spec: { zoneRef: { name: "example-org" }, endpoints },
  };
}
const a = (target = "192.0.2.1"): EndpointInput => ({
  dnsName: "www.example.org",
  recordType: "A",
  targets: [target],
});

Deno.test("DNSRecordSet accepts valid endpoints", async (t) => {
  const rows: [string, EndpointInput][] = [
    ["A without trailing dot", a()],
    ["AAAA with trailing dot", {
      dnsName: "www.example.org.",
      recordType: "AAAA",
      targets: ["2001:db8::1"],
    }],
    ["wildcard owner", { ...a(), dnsName: "*.example.org" }],
    ["MX", {
      dnsName: "example.org",
      recordType: "MX",
      targets: ["10 mail.example.org."],
    }],
    ["TXT with spaces", {
      dnsName: "example.org",
      recordType: "TXT",
      targets: ['"v=spf1 -all"'],
    }],
    ["RFC 3597 type", {
      dnsName: "example.org",
      recordType: "TYPE65280",
      targets: ["\\# 2 abcd"],
    }],
    ["every extension field", {
      ...a(),
      recordTTL: 0,
      setIdentifier: "eu",
      labels: { "kudurru.io/publish": "cloudflare" },
      providerSpecific: [{ name: "cloudflare/proxied", value: "true" }],
      kudurru: {
        comment: "edge",
        disabled: true,
        expiresAt: "2030-01-02T15:04:05+01:00",
        view: "public",
      },
    }],
  ];
  for (const [name, endpoint] of rows) {
    await t.step(name, () => void mustValidate(recordSet(endpoint)));
  }
});

Deno.test("DNSRecordSet accepts a thousand endpoints", () => {
  mustValidate(recordSet(...Array.from({ length: 1000 }, () => a())));
});

Deno.test("DNSRecordSet rejects invalid endpoints", async (t) => {
  const cases: InvalidCase[] = [
    {
      name: "no endpoints",
      input: recordSet(),
      path: "spec.endpoints",
      message: "must have at least 1 item",
    },
    {
      name: "more than 1000 endpoints",
      input: recordSet(...Array.from({ length: 1001 }, () => a())),
      path: "spec.endpoints",
      message: "must have at most 1000 items",
    },
    {
      name: "bad target names endpoint and target index",
      input: recordSet(a(), a(), a(), { ...a(), targets: ["192.0.2.300"] }),
      path: "spec.endpoints[3].targets[0]",
      message: /192\.0\.2\.300/,
    },
    {
      name: "second target bad",
      input: recordSet({ ...a(), targets: ["192.0.2.1", "2001:db8::1"] }),
      path: "spec.endpoints[0].targets[1]",
      message: /2001:db8::1/,
    },
    {
      name: "no targets",
      input: recordSet({ ...a(), targets: [] }),
      path: "spec.endpoints[0].targets",
      message: "must have at least 1 item",
    },
    {
      name: "CNAME with two targets",
      input: recordSet({
        dnsName: "www.example.org",
        recordType: "CNAME",
        targets: ["a.example.org.", "b.example.org."],
      }),
      path: "spec.endpoints[0].targets",
      message: "must hold exactly one target for a CNAME record, got 2",
    },
    {
      name: "CNAME written TYPE5 with two targets",
      input: recordSet({
        dnsName: "www.example.org",
        recordType: "TYPE5",
        targets: ["\\# 3 01 61 00", "\\# 3 01 62 00"],
      }),
      path: "spec.endpoints[0].targets",
      message: "must hold exactly one target for a CNAME record, got 2",
    },
    {
      name: "DNAME with two targets",
      input: recordSet({
        dnsName: "old.example.org",
        recordType: "DNAME",
        targets: ["a.example.org.", "b.example.org."],
      }),
      path: "spec.endpoints[0].targets",
      message: "must hold exactly one target for a DNAME record, got 2",
    },
    {
      name: "unknown record type",
      input: recordSet({ ...a(), recordType: "AAA" }),
      path: "spec.endpoints[0].recordType",
      message:
        "must be one of A, AAAA, CNAME, DNAME, MX, NAPTR, NS, PTR, SRV, TLSA, TXT, CAA, HTTPS, SVCB, SSHFP or TYPEnnn (RFC 3597)",
    },
    {
      name: "wildcard not leftmost",
      input: recordSet({ ...a(), dnsName: "www.*.example.org" }),
      path: "spec.endpoints[0].dnsName",
      message: /leftmost/,
    },
    {
      name: "negative TTL",
      input: recordSet({ ...a(), recordTTL: -1 }),
      path: "spec.endpoints[0].recordTTL",
      message: "must be at least 0",
    },
    {
      name: "expiresAt not RFC 3339",
      input: recordSet({ ...a(), kudurru: { expiresAt: "tomorrow" } }),
      path: "spec.endpoints[0].kudurru.expiresAt",
      message: 'must be an RFC 3339 time such as "2030-01-02T15:04:05Z"',
    },
    {
      name: "unknown field in kudurru block",
      input: recordSet({ ...a(), kudurru: { color: "red" } }),
      path: "spec.endpoints[0].kudurru.color",
      message: "unknown field",
    },
    {
      name: "zoneRef without name",
      input: { ...recordSet(a()), spec: { zoneRef: {}, endpoints: [a()] } },
      path: "spec.zoneRef.name",
      message: "is required",
    },
    {
      name: "missing namespace",
      input: { ...recordSet(a()), metadata: { name: "web" } },
      path: "metadata.namespace",
      message: "is required: DNSRecordSet is namespaced",
    },
  ];
  for (const c of cases) await t.step(c.name, () => assertIssue(c));
});

Deno.test("DNSRecordSet keeps the target text as written", () => {
  const obj = mustValidate(recordSet({ ...a(), targets: ["192.0.2.1"] }));
  const spec = obj.spec as { endpoints: { targets: string[] }[] };
  assert.deepEqual(spec.endpoints[0]?.targets, ["192.0.2.1"]);
});
