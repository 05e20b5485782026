import assert from "node:assert/strict";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import type {
  DNSRecordSet,
  Endpoint,
} from "../../api/v1alpha1/dnsrecordset.ts";
import { validateObject } from "../../api/v1alpha1/validate.ts";
import { recordKey, ZoneRecordEditor } from "./zone_records.ts";
import { recordRows } from "./zone_record_rows.ts";

function zone(spec: Partial<NonNullable<DNSZone["spec"]>> = {}): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "home" },
    spec: {
      zoneName: "home.test.",
      type: "primary",
      defaultTTL: 300,
      policy: {
        queryAccess: "allow",
        zoneTransfer: "deny",
        notify: "none",
        update: "deny",
      },
      ...spec,
    },
  };
}

function set(
  namespace: string,
  name: string,
  managedBy: string,
  endpoints: Endpoint[],
  created = "2026-01-01T00:00:00Z",
): DNSRecordSet {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: {
      namespace,
      name,
      managedBy,
      creationTimestamp: created,
      resourceVersion: "7",
    },
    spec: { zoneRef: { name: "home" }, endpoints },
  };
}

Deno.test("zone records: recordKey compares records as the zone merges them", () => {
  assert.equal(
    recordKey("MX", "10 Mail.Home.test"),
    recordKey("MX", "10 mail.home.test."),
  );
  assert.equal(recordKey("TXT", "hello"), recordKey("TXT", '"hello"'));
  assert.notEqual(recordKey("TXT", '"ABC"'), recordKey("TXT", '"abc"'));
  assert.equal(recordKey("A", "not an address"), "raw:not an address");
});

Deno.test("zone records: rows of other zones are left out; sort is canonical, then type", () => {
  const other = {
    ...set("a", "x", "api", [{
      dnsName: "x.other.test",
      recordType: "A",
      targets: ["192.0.2.9"],
    }]),
  };
  other.spec = { ...other.spec!, zoneRef: { name: "other" } };
  const rows = recordRows(zone(), [
    set("a", "b", "api", [
      { dnsName: "z.home.test", recordType: "TXT", targets: ["t"] },
      { dnsName: "Z.home.test", recordType: "A", targets: ["192.0.2.1"] },
      { dnsName: "home.test", recordType: "MX", targets: ["10 z.home.test"] },
    ]),
    other,
  ]);
  assert.deepEqual(rows.map((r) => `${r.name} ${r.type}`), [
    "home.test. MX",
    "z.home.test. A",
    "z.home.test. TXT",
  ]);
});

Deno.test("zone records: new endpoints fill <zone>-api, then <zone>-api-2 past 1,000 endpoints", () => {
  const editor = new ZoneRecordEditor(zone(), []);
  for (let i = 0; i < 1001; i++) {
    editor.add(`h${i}.home.test.`, "A", [`192.0.2.${i % 250}`]);
  }
  const changes = editor.changes();
  assert.deepEqual(
    changes.map((
      c,
    ) => [c.action, c.object.metadata.name, c.object.spec!.endpoints.length]),
    [["create", "home-api", 1000], ["create", "home-api-2", 1]],
  );
  for (const change of changes) {
    const result = validateObject(change.object);
    assert.ok(result.ok, JSON.stringify(!result.ok && result.issues));
  }
});

Deno.test("zone records: an RRset of more than 1,000 records spans endpoints of one record set", () => {
  const editor = new ZoneRecordEditor(zone(), []);
  const targets = Array.from(
    { length: 1500 },
    (_, i) => `2001:db8::${i.toString(16)}`,
  );
  const result = editor.add("big.home.test.", "AAAA", targets, 60);
  assert.equal(result.added, 1500);
  const [change] = editor.changes();
  assert.deepEqual(
    change!.object.spec!.endpoints.map((e) => [e.targets.length, e.recordTTL]),
    [[1000, 60], [500, 60]],
  );
  const again = editor.add("big.home.test.", "AAAA", targets.slice(0, 10));
  assert.deepEqual([again.added, again.present], [0, 10]);
});

Deno.test("zone records: a file's name and type is foreign; the API's merges, taking the TTL", () => {
  const file = set("infra", "mail", "file:objects.d/m.yaml", [
    { dnsName: "mail.home.test", recordType: "A", targets: ["192.0.2.25"] },
  ]);
  const api = set("default", "home-api", "api", [
    {
      dnsName: "www.home.test",
      recordType: "A",
      targets: ["192.0.2.10"],
      recordTTL: 600,
    },
  ]);
  const editor = new ZoneRecordEditor(zone(), [file, api]);
  assert.deepEqual(editor.foreignHolder("mail.home.test.", 1), {
    recordSet: { namespace: "infra", name: "mail" },
    managedBy: "file:objects.d/m.yaml",
  });
  assert.equal(editor.foreignHolder("www.home.test.", 1), undefined);
  const result = editor.add(
    "WWW.home.test.".toLowerCase(),
    "A",
    ["192.0.2.11"],
    60,
  );
  assert.deepEqual(result.recordSet, {
    namespace: "default",
    name: "home-api",
  });
  const [change] = editor.changes();
  assert.equal(change!.action, "update");
  assert.equal(change!.readAt, "7");
  assert.deepEqual(change!.object.spec!.endpoints, [{
    dnsName: "www.home.test",
    recordType: "A",
    targets: ["192.0.2.10", "192.0.2.11"],
    recordTTL: 60,
  }]);
});

Deno.test("zone records: removing the last record deletes the record set; a file's record is reported", () => {
  const file = set("infra", "mail", "file:objects.d/m.yaml", [
    { dnsName: "www.home.test", recordType: "A", targets: ["192.0.2.10"] },
  ], "2025-01-01T00:00:00Z");
  const api = set("default", "home-api", "api", [
    { dnsName: "www.home.test", recordType: "A", targets: ["192.0.2.10"] },
  ]);
  const editor = new ZoneRecordEditor(zone(), [file, api]);
  const { removed, foreign } = editor.remove(
    "www.home.test.",
    1,
    recordKey("A", "192.0.2.10"),
  );
  assert.equal(removed.length, 1);
  assert.equal(foreign?.recordSet.name, "mail");
  assert.deepEqual(
    editor.changes().map((c) => [c.action, c.object.metadata.name]),
    [["delete", "home-api"]],
  );
});

Deno.test("zone records: the API's record set goes where the zone's recordSetSelector looks", () => {
  const editor = new ZoneRecordEditor(
    zone({
      recordSetSelector: {
        namespaces: ["dns", "apps"],
        labelSelector: { matchLabels: { team: "net" } },
      },
    }),
    [],
  );
  editor.add("www.home.test.", "A", ["192.0.2.1"]);
  const [change] = editor.changes();
  assert.equal(change!.object.metadata.namespace, "dns");
  assert.deepEqual(change!.object.metadata.labels, { team: "net" });
});

Deno.test("zone records: a name taken by another zone's record set is passed over", () => {
  const taken = set("default", "home-api", "api", [
    { dnsName: "x.other.test", recordType: "A", targets: ["192.0.2.1"] },
  ]);
  taken.spec = { ...taken.spec!, zoneRef: { name: "other" } };
  const editor = new ZoneRecordEditor(zone(), [taken]);
  editor.add("www.home.test.", "A", ["192.0.2.1"]);
  assert.deepEqual(
    editor.changes().map((c) => [c.action, c.object.metadata.name]),
    [["create", "home-api-2"]],
  );
});
