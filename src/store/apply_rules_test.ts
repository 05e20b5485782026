import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  jsonEqual,
  permissiveValidator,
  planApply,
  planDelete,
  planStatus,
} from "./apply_rules.ts";
import { ConflictError, InvalidObjectError, ManagedByError } from "./store.ts";

const now = () => new Date("2025-01-01T00:00:00Z");

function thing(
  spec: unknown,
  meta: Partial<KObject["metadata"]> = {},
): KObject {
  return {
    apiVersion: "test/v1",
    kind: "Thing",
    metadata: { name: "t", ...meta },
    spec,
  };
}

function stored(
  spec: unknown,
  meta: Partial<KObject["metadata"]> = {},
): KObject {
  return thing(spec, {
    uid: "u1",
    creationTimestamp: "2024-01-01T00:00:00Z",
    generation: 3,
    resourceVersion: "10",
    managedBy: "api",
    ...meta,
  });
}

Deno.test("apply rules create stamps generation, manager, uid and creationTimestamp", () => {
  const plan = planApply(
    undefined,
    thing({ a: 1 }, { resourceVersion: "5" }),
    { manager: "api" },
    permissiveValidator,
    now,
  );
  assert.equal(plan.outcome, "created");
  assert.equal(plan.object.metadata.generation, 1);
  assert.equal(plan.object.metadata.managedBy, "api");
  assert.equal(
    plan.object.metadata.creationTimestamp,
    "2025-01-01T00:00:00.000Z",
  );
  assert.ok(plan.object.metadata.uid);
  assert.equal(plan.object.metadata.resourceVersion, undefined);
});

Deno.test("apply rules update ignores incoming server fields and keeps status", () => {
  const old = { ...stored({ a: 1 }), status: { ok: true } };
  const incoming = thing({ a: 2 }, {
    uid: "other",
    generation: 99,
    resourceVersion: "1",
    creationTimestamp: "x",
  });
  const plan = planApply(
    old,
    { ...incoming, status: { ok: false } },
    { manager: "api" },
    permissiveValidator,
    now,
  );
  assert.equal(plan.outcome, "updated");
  assert.deepEqual(plan.object.metadata, {
    name: "t",
    uid: "u1",
    creationTimestamp: "2024-01-01T00:00:00Z",
    generation: 4,
    resourceVersion: "10",
    managedBy: "api",
  });
  assert.deepEqual(plan.object.status, { ok: true });
});

Deno.test("apply rules identical content and manager is unchanged", () => {
  const old = stored({ a: 1 }, { labels: {} });
  const plan = planApply(
    old,
    thing({ a: 1 }),
    { manager: "api" },
    permissiveValidator,
    now,
  );
  assert.equal(plan.outcome, "unchanged");
  assert.equal(plan.object, old);
});

Deno.test("apply rules a new manager on identical content is an update", () => {
  const plan = planApply(
    stored({ a: 1 }),
    thing({ a: 1 }),
    { manager: "bootstrap", force: true },
    permissiveValidator,
    now,
  );
  assert.equal(plan.outcome, "updated");
  assert.equal(plan.object.metadata.generation, 3);
});

Deno.test("apply rules another owner needs force", () => {
  assert.throws(
    () =>
      planApply(
        stored({}),
        thing({}),
        { manager: "file:x.yaml" },
        permissiveValidator,
        now,
      ),
    ManagedByError,
  );
  // The message names the object with its namespace.
  assert.throws(
    () =>
      planApply(
        stored({}, { namespace: "home" }),
        thing({}, { namespace: "home" }),
        { manager: "file:x.yaml" },
        permissiveValidator,
        now,
      ),
    /^ManagedByError: Thing "home\/t" is managed by api, not file:x\.yaml$/,
  );
});

Deno.test("apply rules an unowned object can be claimed", () => {
  const plan = planApply(
    stored({}, { managedBy: "" }),
    thing({}),
    { manager: "file:x.yaml" },
    permissiveValidator,
    now,
  );
  assert.equal(plan.object.metadata.managedBy, "file:x.yaml");
});

Deno.test("apply rules expectedResourceVersion must match", () => {
  assert.throws(
    () =>
      planApply(
        stored({}),
        thing({}),
        { manager: "api", expectedResourceVersion: "9" },
        permissiveValidator,
        now,
      ),
    ConflictError,
  );
});

Deno.test("apply rules invalid input throws InvalidObjectError", () => {
  const bad = { apiVersion: "test/v1", kind: "Thing", metadata: {} } as KObject;
  assert.throws(
    () =>
      planApply(undefined, bad, { manager: "api" }, permissiveValidator, now),
    InvalidObjectError,
  );
});

Deno.test("apply rules dropping the last finalizer of a deleting object removes it", () => {
  const old = stored({}, {
    finalizers: ["f"],
    deletionTimestamp: "2025-01-01T00:00:00Z",
  });
  const plan = planApply(
    old,
    thing({}),
    { manager: "api" },
    permissiveValidator,
    now,
  );
  assert.equal(plan.outcome, "removed");
});

Deno.test("apply rules delete marks an object with finalizers once", () => {
  const key = { kind: "Thing", namespace: "", name: "t" };
  const marked = planDelete(key, stored({}, { finalizers: ["f"] }), {}, now);
  assert.equal(marked.outcome, "marked");
  assert.equal(
    marked.object.metadata.deletionTimestamp,
    "2025-01-01T00:00:00.000Z",
  );
  assert.equal(planDelete(key, marked.object, {}, now).outcome, "unchanged");
});

Deno.test("apply rules status of equal value is unchanged", () => {
  const old = { ...stored({}), status: { a: [1, 2] } };
  assert.equal(
    planStatus(old, { ...old, status: { a: [1, 2] } }, permissiveValidator)
      .outcome,
    "unchanged",
  );
  assert.equal(
    planStatus(old, { ...old, status: { a: [2, 1] } }, permissiveValidator)
      .outcome,
    "updated",
  );
});

Deno.test("apply rules jsonEqual treats undefined fields as absent", () => {
  assert.ok(jsonEqual({ a: 1, b: undefined }, { a: 1 }));
  assert.ok(!jsonEqual({ a: [1] }, { a: { 0: 1 } }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: null }));
});
