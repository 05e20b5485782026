import assert from "node:assert/strict";
import { decodeValues, decodeYaml } from "./decode.ts";
import { docs, groupYaml, zoneYaml } from "./testdata/fixtures.ts";

const SRC = "objects.d/x.yaml";

Deno.test("decodeYaml reads every document of a multi-document stream", () => {
  const r = decodeYaml(
    SRC,
    docs(groupYaml("a"), "# only a comment\n", zoneYaml("z", "z.")),
  );
  assert.deepEqual(r.objects.map((o) => [o.document, o.name]), [
    [1, "ClientGroup/default/a"],
    [3, "DNSZone/z"],
  ]);
  assert.equal(r.diagnoses.length, 0);
});

Deno.test("decodeYaml takes a byte order mark at the start of any document, as cat a.yaml b.yaml leaves it", async (t) => {
  const bom = "\uFEFF";
  const cases: [string, string][] = [
    ["after ---", `${groupYaml("a")}---\n${bom}${groupYaml("b")}`],
    ["before ---", `${groupYaml("a")}${bom}---\n${groupYaml("b")}`],
    [
      "after --- with CRLF line ends",
      `${groupYaml("a")}---\n${bom}${groupYaml("b")}`.replaceAll("\n", "\r\n"),
    ],
    ["after ...", `${groupYaml("a")}...\n${bom}${groupYaml("b")}`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const r = decodeYaml(SRC, text);
      assert.deepEqual(r.diagnoses, []);
      assert.deepEqual(r.objects.map((o) => o.name), [
        "ClientGroup/default/a",
        "ClientGroup/default/b",
      ]);
    });
  }
});

Deno.test("decodeYaml rejects duplicate keys with their line number", () => {
  const r = decodeYaml(
    SRC,
    docs(groupYaml("a"), "kind: ClientGroup\nkind: Policy\n"),
  );
  assert.equal(r.unidentifiable, 1);
  assert.equal(r.diagnoses[0]?.reason, "InvalidYAML");
  assert.equal(r.diagnoses[0]?.document, 2);
  assert.match(
    r.diagnoses[0]!.message,
    /document 2: line 10, column 1: Map keys must be unique/,
  );
});

Deno.test("decodeYaml flattens kind List documents", () => {
  const list = `apiVersion: v1
kind: List
items:
- apiVersion: kudurru.io/v1alpha1
  kind: ClientGroup
  metadata: { name: a, namespace: team }
  spec: { clients: [] }
- apiVersion: kudurru.io/v1alpha1
  kind: DNSZone
  metadata: { name: z }
  spec: { zoneName: z., type: forward, forward: { upstreamGroup: default } }
`;
  const r = decodeYaml(SRC, list);
  assert.deepEqual(r.objects.map((o) => [o.document, o.item, o.name]), [
    [1, 0, "ClientGroup/team/a"],
    [1, 1, "DNSZone/z"],
  ]);
});

Deno.test("decodeYaml strips server-populated fields, status and the managed-by annotation", () => {
  const text = `apiVersion: kudurru.io/v1alpha1
kind: ClientGroup
metadata:
  name: a
  namespace: default
  uid: 1234
  resourceVersion: "9"
  generation: 3
  creationTimestamp: "2024-01-01T00:00:00Z"
  deletionTimestamp: "2024-01-02T00:00:00Z"
  managedFields: [{ manager: kubectl }]
  managedBy: api
  labels: { team: a }
  annotations: { kudurru.io/managed-by: api }
spec: { clients: [] }
status: { conditions: [] }
`;
  const [o] = decodeYaml(SRC, text).objects;
  assert.deepEqual(o?.object, {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "ClientGroup",
    metadata: { name: "a", namespace: "default", labels: { team: "a" } },
    spec: { clients: [] },
  });
});

Deno.test("decodeYaml puts namespaced kinds without a namespace into the default namespace", async (t) => {
  await t.step("default option", () => {
    assert.equal(
      decodeYaml(SRC, groupYaml("a")).objects[0]?.key.namespace,
      "default",
    );
  });
  await t.step("explicit option", () => {
    const r = decodeYaml(SRC, groupYaml("a"), { defaultNamespace: "dns" });
    assert.equal(r.objects[0]?.object.metadata.namespace, "dns");
  });
  await t.step("cluster-scoped kinds get none", () => {
    const text = zoneYaml("z", "z.").replace(
      "name: z",
      "name: z, namespace: dns",
    );
    assert.equal(
      decodeYaml(SRC, text).objects[0]?.object.metadata.namespace,
      undefined,
    );
  });
});

Deno.test("decodeYaml reports documents it cannot identify", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["a YAML error", "kind: [\n", "InvalidYAML", /line \d+/],
    [
      "an alias inside itself",
      "kind: &a [*a]\n",
      "InvalidYAML",
      /a YAML alias refers to a node that contains it/,
    ],
    ["not a mapping", "- a\n- b\n", "NotAnObject", /not a mapping/],
    [
      "no apiVersion",
      "kind: ClientGroup\nmetadata: { name: a }\n",
      "NotAnObject",
      /apiVersion/,
    ],
    [
      "no kind",
      "apiVersion: kudurru.io/v1alpha1\nmetadata: { name: a }\n",
      "NotAnObject",
      /kind/,
    ],
    [
      "no name",
      "apiVersion: kudurru.io/v1alpha1\nkind: ClientGroup\nmetadata: {}\n",
      "NotAnObject",
      /metadata\.name/,
    ],
    [
      "a name YAML reads as a number",
      "apiVersion: kudurru.io/v1alpha1\nkind: ClientGroup\nmetadata: { name: 123 }\n",
      "NotAnObject",
      /metadata\.name must be a string, not 123 quote it: name: "123"/,
    ],
    [
      // Before, silently replaced by "default".
      "a namespace YAML reads as a number",
      "apiVersion: kudurru.io/v1alpha1\nkind: ClientGroup\nmetadata: { name: a, namespace: 2024 }\n",
      "NotAnObject",
      /metadata\.namespace must be a string, not 2024/,
    ],
    [
      "an unknown kind",
      groupYaml("a").replace("ClientGroup", "ClientGrup"),
      "UnknownKind",
      /"ClientGrup"/,
    ],
    [
      "a lowercase kind",
      groupYaml("a").replace("ClientGroup", "clientgroup"),
      "UnknownKind",
      /did you mean/,
    ],
    [
      "another apiVersion",
      groupYaml("a").replace("v1alpha1", "v1beta1"),
      "UnknownKind",
      /apiVersion/,
    ],
  ];
  for (const [name, text, reason, message] of cases) {
    await t.step(name, () => {
      const r = decodeYaml(SRC, text);
      assert.equal(r.unidentifiable, 1);
      assert.equal(r.objects.length, 0);
      assert.equal(r.diagnoses[0]?.reason, reason);
      assert.match(
        `${r.diagnoses[0]?.message} ${r.diagnoses[0]?.hint}`,
        message,
      );
    });
  }
});

Deno.test("decodeValues treats each inline item as a document and leaves the input alone", () => {
  const item = {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "ClientGroup",
    metadata: { name: "a", uid: "x" },
    spec: { clients: [] },
  };
  const r = decodeValues("kudurru.yaml", [item, "oops"]);
  assert.equal(r.objects[0]?.document, 1);
  assert.equal(r.objects[0]?.object.metadata.uid, undefined);
  assert.equal(item.metadata.uid, "x");
  assert.equal(r.diagnoses[0]?.document, 2);
  assert.equal(r.diagnoses[0]?.reason, "NotAnObject");
});
