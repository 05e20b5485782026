import { deepEqual } from "node:assert/strict";
import { countChanges, diffObjects, leaves } from "./audit_diff.ts";

Deno.test("leaves walks objects and lists down to their scalars", () => {
  deepEqual(
    [
      ...leaves({
        metadata: { name: "bob", labels: {} },
        spec: { subjects: [{ kind: "User", name: "bob" }], tags: [], n: 1 },
        gone: null,
        skipped: undefined,
      }),
    ],
    [
      ["metadata.name", '"bob"'],
      ["metadata.labels", "{}"],
      ["spec.subjects[0].kind", '"User"'],
      ["spec.subjects[0].name", '"bob"'],
      ["spec.tags", "[]"],
      ["spec.n", "1"],
      ["gone", "null"],
    ],
  );
  deepEqual([...leaves("a value")], [["", '"a value"']]);
  deepEqual([...leaves(undefined)], []);
});

Deno.test("diffObjects: an update names what changed, what went and what came", () => {
  const before = {
    metadata: { name: "bob", resourceVersion: "9" },
    spec: { disabled: false, roles: ["viewer", "auditor"] },
  };
  const after = {
    metadata: { name: "bob", resourceVersion: "13" },
    spec: {
      disabled: true,
      roles: ["viewer"],
      sessionsValidAfter: "2026-01-01T00:00:00Z",
    },
  };
  deepEqual(diffObjects(before, after), [
    { path: "metadata.name", change: "same", before: '"bob"', after: '"bob"' },
    {
      path: "metadata.resourceVersion",
      change: "changed",
      before: '"9"',
      after: '"13"',
    },
    {
      path: "spec.disabled",
      change: "changed",
      before: "false",
      after: "true",
    },
    {
      path: "spec.roles[0]",
      change: "same",
      before: '"viewer"',
      after: '"viewer"',
    },
    { path: "spec.roles[1]", change: "removed", before: '"auditor"' },
    {
      path: "spec.sessionsValidAfter",
      change: "added",
      after: '"2026-01-01T00:00:00Z"',
    },
  ]);
});

Deno.test("diffObjects: a create is all added, a delete all removed", () => {
  const object = { spec: { role: "viewer", scope: { kind: "cluster" } } };
  deepEqual(diffObjects(undefined, object), [
    { path: "spec.role", change: "added", after: '"viewer"' },
    { path: "spec.scope.kind", change: "added", after: '"cluster"' },
  ]);
  deepEqual(diffObjects(object, undefined).map((r) => r.change), [
    "removed",
    "removed",
  ]);
  deepEqual(diffObjects(undefined, undefined), []);
});

Deno.test("diffObjects: a list that empties, a scalar that becomes an object", () => {
  deepEqual(diffObjects({ a: [1], b: 1 }, { a: [], b: { c: 2 } }), [
    { path: "a[0]", change: "removed", before: "1" },
    { path: "b", change: "removed", before: "1" },
    { path: "a", change: "added", after: "[]" },
    { path: "b.c", change: "added", after: "2" },
  ]);
});

Deno.test("countChanges counts each kind", () => {
  deepEqual(
    countChanges(diffObjects({ a: 1, b: 2, c: 3 }, { a: 1, b: 3, d: 4 })),
    { added: 1, removed: 1, changed: 1, same: 1 },
  );
});
