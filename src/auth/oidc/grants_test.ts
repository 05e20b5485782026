/** Which bindings a provider's login gets, and what its session keeps. */
import assert from "node:assert/strict";
import type { Binding } from "../../rbac/binding.ts";
import { LoginRefusedError, type OidcIdentity } from "./claims.ts";
import { MAX_SESSION_GROUPS, resolveGrants } from "./grants.ts";

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
