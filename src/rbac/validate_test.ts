import assert from "node:assert/strict";
import type { Binding } from "./binding.ts";
import type { TokenScope } from "./principal.ts";
import {
  type RbacIssue,
  validateBinding,
  validateTokenScopes,
} from "./validate.ts";

const ROLES_LIST = "roles: viewer, operator, admin, auditor, zone-admin";
const alice = { kind: "User", name: "alice" } as const;

Deno.test("validateBinding accepts good bindings and names each problem", async (t) => {
  const cases: [string, Binding, RbacIssue[]][] = [
    ["cluster viewer", {
      role: "viewer",
      scope: { kind: "cluster" },
      subjects: [alice],
    }, []],
    ["zone-admin of a zone", {
      role: "zone-admin",
      scope: { kind: "zone", name: "corp-example" },
      subjects: [{ kind: "ServiceAccount", name: "dns", namespace: "infra" }],
    }, []],
    ["zonegroup seam is accepted", {
      role: "zone-admin",
      scope: { kind: "zonegroup", name: "team=web" },
      subjects: [alice],
    }, []],
    ["clientgroup seam is accepted", {
      role: "operator",
      scope: { kind: "clientgroup", name: "kids" },
      subjects: [alice],
    }, []],
    ["unknown role", {
      role: "viewr",
      scope: { kind: "cluster" },
      subjects: [alice],
    }, [{ path: "role", message: `unknown role "viewr"; ${ROLES_LIST}` }]],
    ["zone without name", {
      role: "zone-admin",
      scope: { kind: "zone" },
      subjects: [alice],
    }, [{
      path: "scope.name",
      message: "is required for a zone scope (the DNSZone object's name)",
    }]],
    ["zonegroup without name", {
      role: "viewer",
      scope: { kind: "zonegroup", name: "" },
      subjects: [alice],
    }, [{
      path: "scope.name",
      message: "is required for a zonegroup scope (the zones' label selector)",
    }]],
    ["cluster with a name", {
      role: "admin",
      scope: { kind: "cluster", name: "everything" },
      subjects: [alice],
    }, [{ path: "scope.name", message: "must be empty for a cluster scope" }]],
    ["no subjects", {
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [],
    }, [{ path: "subjects", message: "needs at least one subject" }]],
    ["bad subjects", {
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [
        alice,
        { kind: "Group", name: "ops", namespace: "default" },
        { kind: "User", name: "" },
        { kind: "Robot" as "User", name: "r2" },
      ],
    }, [
      {
        path: "subjects[1].namespace",
        message:
          "only a ServiceAccount has a namespace; remove it from this Group",
      },
      { path: "subjects[2].name", message: "must not be empty" },
      {
        path: "subjects[3].kind",
        message: "must be one of: User, Group, ServiceAccount",
      },
    ]],
    ["bad scope kind", {
      role: "admin",
      scope: { kind: "namespace" as "cluster" },
      subjects: [alice],
    }, [{
      path: "scope.kind",
      message: "must be one of: cluster, zone, zonegroup, clientgroup",
    }]],
  ];
  for (const [name, binding, want] of cases) {
    await t.step(name, () => assert.deepEqual(validateBinding(binding), want));
  }
});

Deno.test("validateBinding prefixes paths with the binding's place", () => {
  assert.deepEqual(
    validateBinding(
      { role: "root", scope: { kind: "cluster" }, subjects: [alice] },
      "rbac.bindings[2]",
    ).map((i) => i.path),
    ["rbac.bindings[2].role"],
  );
});

Deno.test("validateTokenScopes accepts known roles and names each problem", async (t) => {
  const cases: [string, TokenScope[], RbacIssue[]][] = [
    ["read-only dashboard", [{ role: "viewer" }], []],
    ["one zone", [{
      role: "zone-admin",
      scope: { kind: "zone", name: "corp-example" },
    }], []],
    ["cluster scope spelled out", [{
      role: "operator",
      scope: { kind: "cluster" },
    }], []],
    ["empty: the owner's full rights", [], []],
    ["unknown role", [{ role: "viewer" }, { role: "superuser" }], [{
      path: "scopes[1].role",
      message: `unknown role "superuser"; ${ROLES_LIST}`,
    }]],
    ["zone without name", [{
      role: "zone-admin",
      scope: { kind: "zone", name: "" },
    }], [{
      path: "scopes[0].scope.name",
      message: "is required for a zone scope (the DNSZone object's name)",
    }]],
    ["seam kinds are not token scopes", [{
      role: "viewer",
      scope: { kind: "zonegroup" as "zone", name: "team=web" },
    }], [{ path: "scopes[0].scope.kind", message: "must be cluster or zone" }]],
  ];
  for (const [name, scopes, want] of cases) {
    await t.step(
      name,
      () => assert.deepEqual(validateTokenScopes(scopes), want),
    );
  }
});
