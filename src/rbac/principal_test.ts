import assert from "node:assert/strict";
import type { TokenScope as StoredTokenScope } from "../api/v1alpha1/auth_kinds.ts";
import {
  kubernetesServiceAccountName,
  type Principal,
  type Subject,
  subjectFor,
  subjectMatches,
  type TokenScope,
} from "./principal.ts";

const alice: Principal = {
  kind: "User",
  name: "alice",
  groups: ["corp:ops"],
  via: "session",
};
const ci: Principal = {
  kind: "ServiceAccount",
  name: "ci",
  groups: [],
  via: "token",
};
const externalDns: Principal = {
  kind: "ServiceAccount",
  name: "system:serviceaccount:kube-system:external-dns",
  groups: ["system:serviceaccounts"],
  via: "token",
};

Deno.test("subjectMatches matches by kind, name, group and namespace", async (t) => {
  const cases: [string, Subject, Principal, boolean][] = [
    ["user by name", { kind: "User", name: "alice" }, alice, true],
    ["user other name", { kind: "User", name: "bob" }, alice, false],
    ["user is not a service account", { kind: "User", name: "ci" }, ci, false],
    ["group member", { kind: "Group", name: "corp:ops" }, alice, true],
    ["group unprefixed", { kind: "Group", name: "ops" }, alice, false],
    [
      "service account group",
      {
        kind: "Group",
        name: "system:serviceaccounts",
      },
      externalDns,
      true,
    ],
    ["own service account", { kind: "ServiceAccount", name: "ci" }, ci, true],
    [
      "service account is not a user",
      {
        kind: "ServiceAccount",
        name: "alice",
      },
      alice,
      false,
    ],
    [
      "kubernetes service account",
      {
        kind: "ServiceAccount",
        name: "external-dns",
        namespace: "kube-system",
      },
      externalDns,
      true,
    ],
    [
      "kubernetes service account, other namespace",
      {
        kind: "ServiceAccount",
        name: "external-dns",
        namespace: "default",
      },
      externalDns,
      false,
    ],
    [
      "namespaced subject is not an own account",
      {
        kind: "ServiceAccount",
        name: "ci",
        namespace: "default",
      },
      ci,
      false,
    ],
    [
      "namespace on a user matches nobody",
      {
        kind: "User",
        name: "alice",
        namespace: "default",
      },
      alice,
      false,
    ],
  ];
  for (const [name, subject, principal, want] of cases) {
    await t.step(
      name,
      () => assert.equal(subjectMatches(subject, principal), want),
    );
  }
});

Deno.test("subjectFor names the principal itself", async (t) => {
  const cases: [string, Principal, Subject | undefined][] = [
    ["user", alice, { kind: "User", name: "alice" }],
    ["own service account", ci, { kind: "ServiceAccount", name: "ci" }],
    ["kubernetes service account", externalDns, {
      kind: "ServiceAccount",
      namespace: "kube-system",
      name: "external-dns",
    }],
    ["anonymous", { ...alice, via: "anonymous" }, undefined],
  ];
  for (const [name, principal, want] of cases) {
    await t.step(name, () => {
      const subject = subjectFor(principal);
      assert.deepEqual(subject, want);
      if (subject !== undefined) assert.ok(subjectMatches(subject, principal));
    });
  }
});

Deno.test("kubernetesServiceAccountName is the apiserver's user name", () => {
  assert.equal(
    kubernetesServiceAccountName("kube-system", "external-dns"),
    "system:serviceaccount:kube-system:external-dns",
  );
});

Deno.test("TokenScope takes an APIToken's stored scopes as they are", () => {
  // Compile-time: no conversion between the stored token and the principal.
  const stored: StoredTokenScope[] = [{ role: "viewer" }, {
    role: "zone-admin",
    scope: { kind: "zone", name: "corp-example" },
  }];
  const scopes: TokenScope[] = stored;
  assert.equal(scopes.length, 2);
});
