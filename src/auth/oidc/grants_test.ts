/** Which bindings a provider's login gets, and what its session keeps. */
import assert from "node:assert/strict";
import type { Binding } from "../../rbac/binding.ts";
import { LoginRefusedError, type OidcIdentity } from "./claims.ts";
import {
  defaultRoleGroup,
  MAX_SESSION_GROUPS,
  provisioningBindings,
  resolveGrants,
} from "./grants.ts";

const ALICE: OidcIdentity = {
  username: "corp:alice",
  groups: ["corp:ops", "corp:staff", "corp:other"],
  key: { provider: "corp", iss: "https://idp", sub: "1" },
};

const binding = (
  role: string,
  subjects: Binding["subjects"],
  scope: Binding["scope"] = { kind: "cluster" },
): Binding => ({ role, scope, subjects });

Deno.test("only the groups some binding names are kept", () => {
  const grants = resolveGrants(ALICE, [
    binding("operator", [{ kind: "Group", name: "corp:ops" }]),
    binding("viewer", [{ kind: "User", name: "corp:alice" }], {
      kind: "zone",
      name: "example-com",
    }),
    binding("admin", [{ kind: "Group", name: "ops" }]), // unprefixed: another group
  ]);
  assert.deepEqual(grants.groups, ["corp:ops"]);
  assert.deepEqual(grants.roles, [
    "operator at cluster",
    "viewer at zone:example-com",
  ]);
});

Deno.test("no binding, a local user's binding, or an unknown role: refused", () => {
  for (
    const bindings of [
      [],
      [binding("admin", [{ kind: "User", name: "alice" }])],
      [binding("superuser", [{ kind: "Group", name: "corp:ops" }])],
    ]
  ) {
    assert.throws(
      () => resolveGrants(ALICE, bindings),
      (e) => e instanceof LoginRefusedError && e.reason === "no_binding",
    );
  }
});

Deno.test("more bound groups than a session holds: refused", () => {
  const groups = Array.from(
    { length: MAX_SESSION_GROUPS + 1 },
    (_, i) => `corp:g${i}`,
  );
  assert.throws(
    () =>
      resolveGrants(
        { ...ALICE, groups },
        [binding("viewer", groups.map((name) => ({ kind: "Group", name })))],
      ),
    (e) =>
      e instanceof LoginRefusedError && e.reason === "too_many_bound_groups",
  );
});

Deno.test("provisioning always: the default role for whom no binding names, through kudurru's own group", () => {
  const always = { autoProvision: "always" as const, defaultRole: "viewer" };
  const bindings = provisioningBindings([
    { id: "corp", provisioning: always },
    { id: "other", provisioning: { ...always, autoProvision: "mapped-only" } },
  ]);
  assert.deepEqual(bindings, [
    binding("viewer", [{ kind: "Group", name: defaultRoleGroup("corp") }]),
  ]);
  const grants = resolveGrants(ALICE, bindings, always);
  assert.deepEqual(grants.groups, [defaultRoleGroup("corp")]);
  assert.deepEqual(grants.roles, ["viewer at cluster"]);
  // Someone a binding names keeps what it gives, without the default.
  const bound = resolveGrants(ALICE, [
    ...bindings,
    binding("operator", [{ kind: "Group", name: "corp:ops" }]),
  ], always);
  assert.deepEqual(bound.groups, ["corp:ops"]);
});

Deno.test("kudurru's own groups cannot come from a provider", () => {
  // A provider without a group prefix sends the default role's group name.
  const forged = { ...ALICE, groups: [defaultRoleGroup("corp")] };
  assert.throws(
    () =>
      resolveGrants(forged, [
        binding("viewer", [{ kind: "Group", name: defaultRoleGroup("corp") }]),
      ]),
    (e) => e instanceof LoginRefusedError && e.reason === "no_binding",
  );
});

Deno.test("provisioning never: only a user a binding names one by one", () => {
  const never = { autoProvision: "never" as const, defaultRole: "" };
  const group = binding("operator", [{ kind: "Group", name: "corp:ops" }]);
  assert.throws(
    () => resolveGrants(ALICE, [group], never),
    (e) => e instanceof LoginRefusedError && e.reason === "not_provisioned",
  );
  const named = resolveGrants(ALICE, [
    group,
    binding("viewer", [{ kind: "User", name: "corp:alice" }]),
  ], never);
  assert.deepEqual(named.groups, ["corp:ops"]);
  assert.deepEqual(named.roles, ["operator at cluster", "viewer at cluster"]);
});
