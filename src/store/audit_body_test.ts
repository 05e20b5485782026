import assert from "node:assert/strict";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import {
  AUDIT_MASK,
  AUDIT_MASK_CHANGED,
  auditBodies,
  runtimeAuditBodies,
} from "./audit_body.ts";

function user(hash: string | undefined, sealed?: string): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "User",
    metadata: { name: "alice" },
    spec: {
      displayName: "Alice",
      ...(hash !== undefined && { passwordHash: hash }),
      ...(sealed !== undefined &&
        { totp: { sealedSecret: sealed, enabled: true, lastStep: 0 } }),
    },
  };
}

Deno.test("audit bodies mask secrets, and say when one changed", () => {
  const before = user("$argon2id$old", "sealed-1");
  const after = user("$argon2id$new", "sealed-1");
  const bodies = auditBodies(before, after);
  const b = bodies.before as { spec: Record<string, unknown> };
  const a = bodies.after as { spec: Record<string, unknown> };
  assert.equal(b.spec.passwordHash, AUDIT_MASK);
  assert.equal(a.spec.passwordHash, AUDIT_MASK_CHANGED);
  assert.deepEqual(a.spec.totp, {
    sealedSecret: AUDIT_MASK,
    enabled: true,
    lastStep: 0,
  });
  assert.equal(a.spec.displayName, "Alice");
  assert.equal(
    (before.spec as { passwordHash: string }).passwordHash,
    "$argon2id$old",
    "the inputs stay as they were",
  );
  assert.doesNotMatch(JSON.stringify(bodies), /argon2id|sealed-1/);
});

Deno.test("audit bodies of a create and a delete have one side; an unset secret stays unset", () => {
  const created = auditBodies(undefined, user(undefined));
  assert.equal(Object.hasOwn(created, "before"), false);
  const spec = (created.after as { spec: Record<string, unknown> }).spec;
  assert.equal(Object.hasOwn(spec, "passwordHash"), false);
  const token: KObject = {
    apiVersion: API_VERSION,
    kind: "APIToken",
    metadata: { name: "t1" },
    spec: { secretHash: "ab".repeat(32) },
  };
  const deleted = auditBodies(token, undefined);
  assert.equal(Object.hasOwn(deleted, "after"), false);
  assert.deepEqual((deleted.before as KObject).spec, {
    secretHash: AUDIT_MASK,
  });
});

Deno.test("audit bodies of a status write keep the status only", () => {
  const before = { ...user("h"), status: { observedGeneration: 1 } };
  const after = { ...user("h"), status: { observedGeneration: 2 } };
  assert.deepEqual(auditBodies(before, after, { statusOnly: true }), {
    before: { status: { observedGeneration: 1 } },
    after: { status: { observedGeneration: 2 } },
  });
});

Deno.test("audit bodies of a runtime value are its value", () => {
  const at = "2026-06-01T12:00:00.000Z";
  assert.deepEqual(
    runtimeAuditBodies(undefined, { key: "k", value: "v", updatedAt: at }),
    { after: { value: "v" } },
  );
  assert.deepEqual(
    runtimeAuditBodies({ key: "k", value: "v", updatedAt: at }, undefined),
    { before: { value: "v" } },
  );
});
