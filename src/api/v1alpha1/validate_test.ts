import assert from "node:assert/strict";
import YAML from "yaml";
import {
  formatPath,
  sameContent,
  validateObject,
  validateStatus,
} from "./validate.ts";
import type { KObject } from "./meta.ts";

const seedExamples = YAML.parseAllDocuments(
  Deno.readTextFileSync(
    new URL("./testdata/seed_examples.yaml", import.meta.url),
  ),
).map((d) => d.toJS() as Record<string, unknown>);

const zone: KObject = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "DNSZone",
  metadata: { name: "example-org" },
  spec: { zoneName: "example.org.", type: "primary" },
};
const recordSet: KObject = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "DNSRecordSet",
  metadata: { name: "web", namespace: "apps" },
  spec: {
    zoneRef: { name: "example-org" },
    endpoints: [{ dnsName: "www", recordType: "A", targets: ["192.0.2.1"] }],
  },
};

function issuesOf(input: unknown, old?: KObject) {
  const result = validateObject(input, old);
  return result.ok ? [] : result.issues;
}

Deno.test("validateObject accepts the design examples", async (t) => {
  for (const doc of seedExamples) {
    await t.step(String(doc.kind), () => assert.deepEqual(issuesOf(doc), []));
  }
});

Deno.test("validateObject rejects the planned publish field", () => {
  const doc = structuredClone(seedExamples[0]!);
  (doc.spec as Record<string, unknown>).publish = [];
  assert.deepEqual(issuesOf(doc), [{
    path: "spec.publish",
    message: "unknown field",
  }]);
});

Deno.test("validateObject checks the envelope", async (t) => {
  const rows: [string, unknown, { path: string; message: string }][] = [
    ["not an object", "zone", {
      path: "",
      message: "must be an object with apiVersion, kind, metadata and spec",
    }],
    ["wrong apiVersion", { ...zone, apiVersion: "kudurru.io/v1" }, {
      path: "apiVersion",
      message: 'must be "kudurru.io/v1alpha1", got "kudurru.io/v1"',
    }],
    ["unknown kind", { ...zone, kind: "DNSZon" }, {
      path: "kind",
      message:
        'unknown kind "DNSZon"; known kinds: DNSZone, DNSRecordSet, BlockList, ClientGroup, Policy',
    }],
    ["missing spec", { ...zone, spec: undefined }, {
      path: "spec",
      message: "is required",
    }],
    ["bad name", { ...zone, metadata: { name: "Example" } }, {
      path: "metadata.name",
      message: "must be a lowercase DNS-1123 subdomain (a-z, 0-9, '-', '.')",
    }],
    ["unknown top-level field", { ...zone, extra: 1 }, {
      path: "extra",
      message: "unknown field",
    }],
  ];
  for (const [name, input, issue] of rows) {
    await t.step(name, () => assert.deepEqual(issuesOf(input), [issue]));
  }
});

Deno.test("validateObject names unknown fields with their path", () => {
  const input = structuredClone(recordSet) as KObject<{ endpoints: object[] }>;
  input.spec!.endpoints.push({
    dnsName: "a",
    recordType: "A",
    targets: ["192.0.2.2"],
    kudurru: { coment: "typo" },
  });
  assert.deepEqual(issuesOf(input), [{
    path: "spec.endpoints[1].kudurru.coment",
    message: "unknown field",
  }]);
});

Deno.test("validateObject quotes label keys in paths", () => {
  const input = {
    ...zone,
    metadata: { name: "z", labels: { "kudurru.io/x": 1 } },
  };
  assert.deepEqual(issuesOf(input), [{
    path: 'metadata.labels["kudurru.io/x"]',
    message: "must be a string",
  }]);
});

Deno.test("validateObject does not modify its input", () => {
  const input = structuredClone(zone);
  validateObject(input);
  assert.deepEqual(input, zone);
});

Deno.test("validateObject rejects a changed zoneName", () => {
  const next = { ...zone, spec: { zoneName: "example.net.", type: "primary" } };
  assert.deepEqual(issuesOf(next, zone), [{
    path: "spec.zoneName",
    message: 'zoneName is immutable: was "example.org.", got "example.net."',
  }]);
});

Deno.test("validateObject rejects a changed zoneRef", () => {
  const next = structuredClone(recordSet) as KObject<{ zoneRef: object }>;
  next.spec!.zoneRef = { name: "other" };
  assert.deepEqual(issuesOf(next, recordSet), [{
    path: "spec.zoneRef",
    message:
      'zoneRef is immutable: was {"name":"example-org"}, got {"name":"other"}',
  }]);
});

Deno.test("validateObject accepts an update that keeps immutable fields", () => {
  const next = { ...zone, spec: { ...zone.spec as object, defaultTTL: 60 } };
  assert.deepEqual(issuesOf(next, zone), []);
});

Deno.test("validateObject validates status when present", () => {
  const input = { ...zone, status: { serial: -1 } };
  assert.deepEqual(issuesOf(input), [{
    path: "status.serial",
    message: "must be at least 0",
  }]);
});

Deno.test("validateStatus prefixes issue paths with status", () => {
  const result = validateStatus({
    ...zone,
    status: {
      conditions: [{ type: "Ready", status: "Yes", reason: "Serving" }],
    },
  });
  assert.deepEqual(result.ok ? [] : result.issues, [{
    path: "status.conditions[0].status",
    message: "must be one of: True, False, Unknown",
  }]);
});

Deno.test("validateStatus accepts a valid status", () => {
  const obj = { ...zone, status: { serial: 2024010101, recordCount: 3 } };
  assert.deepEqual(validateStatus(obj), { ok: true, object: obj });
});

Deno.test("formatPath writes indices and dotted keys", () => {
  assert.equal(
    formatPath(["spec", "endpoints", 3, "targets", 0]),
    "spec.endpoints[3].targets[0]",
  );
});

Deno.test("sameContent ignores key order and metadata other than labels", () => {
  const a: KObject = {
    ...zone,
    metadata: { name: "z", labels: { a: "1", b: "2" }, resourceVersion: "1" },
    spec: { type: "primary", zoneName: "example.org." },
  };
  const b: KObject = {
    ...zone,
    metadata: {
      name: "z",
      labels: { b: "2", a: "1" },
      resourceVersion: "7",
      generation: 3,
    },
    spec: { zoneName: "example.org.", type: "primary" },
    status: { serial: 9 },
  };
  assert.equal(sameContent(a, b), true);
});

Deno.test("sameContent sees a changed spec, label, annotation or finalizer", async (t) => {
  const rows: [string, KObject][] = [
    ["spec", { ...zone, spec: { zoneName: "example.org.", type: "forward" } }],
    ["label", { ...zone, metadata: { ...zone.metadata, labels: { a: "1" } } }],
    ["annotation", {
      ...zone,
      metadata: { ...zone.metadata, annotations: { a: "1" } },
    }],
    ["finalizer", {
      ...zone,
      metadata: { ...zone.metadata, finalizers: ["x"] },
    }],
  ];
  for (const [name, changed] of rows) {
    await t.step(name, () => assert.equal(sameContent(zone, changed), false));
  }
});

Deno.test("sameContent treats absent and empty labels alike", () => {
  const empty = { ...zone, metadata: { ...zone.metadata, labels: {} } };
  assert.equal(sameContent(zone, empty), true);
});
