import assert from "node:assert/strict";
import { rbacSchema } from "../config/schema_auth.ts";
import {
  type AccessRequest,
  authorize,
  creatorBinding,
  type Decision,
  visibleZones,
} from "./authorize.ts";
import type { Binding } from "./binding.ts";
import { isZoneScoped, PERMISSIONS, roleGrants, ROLES } from "./permissions.ts";
import type { Principal, TokenScope } from "./principal.ts";
import { CLUSTER, scopeLabel, type ScopeRequest } from "./scope.ts";

// Parsed by the config's own schema, so the test feeds authorize() exactly
// what `rbac.bindings` yields.
const BINDINGS: readonly Binding[] = rbacSchema.parse({
  bindings: [
    { role: "viewer", subjects: [{ kind: "Group", name: "corp:staff" }] },
    { role: "operator", subjects: [{ kind: "User", name: "olga" }] },
    { role: "admin", subjects: [{ kind: "Group", name: "corp:admins" }] },
    { role: "auditor", subjects: [{ kind: "User", name: "aude" }] },
    {
      role: "zone-admin",
      scope: { kind: "zone", name: "corp-example" },
      subjects: [{ kind: "User", name: "zed" }],
    },
    {
      role: "zone-admin",
      scope: { kind: "zone", name: "lab-example" },
      subjects: [{ kind: "User", name: "zed" }],
    },
    {
      role: "operator",
      scope: { kind: "zone", name: "corp-example" },
      subjects: [{ kind: "User", name: "opal" }],
    },
    {
      role: "zone-admin",
      subjects: [{
        kind: "ServiceAccount",
        name: "external-dns",
        namespace: "kube-system",
      }],
    },
    { role: "operator", subjects: [{ kind: "ServiceAccount", name: "ci" }] },
    { role: "viewr", subjects: [{ kind: "User", name: "typo" }] },
    {
      role: "admin",
      scope: { kind: "zonegroup", name: "team=web" },
      subjects: [{ kind: "User", name: "zg" }],
    },
    {
      role: "admin",
      scope: { kind: "clientgroup", name: "kids" },
      subjects: [{ kind: "User", name: "cg" }],
    },
  ],
}).bindings;

function user(
  name: string,
  groups: string[] = [],
  tokenScopes?: TokenScope[],
): Principal {
  return tokenScopes === undefined
    ? { kind: "User", name, groups, via: "session" }
    : { kind: "User", name, groups, via: "token", tokenScopes };
}

const ZONE = (name: string): ScopeRequest => ({ kind: "zone", name });
const CORP = ZONE("corp-example");
const OTHER = ZONE("other-example");

const staff = user("sam", ["corp:staff"]);
const admin = user("ada", ["corp:admins"]);
const olga = user("olga");
const aude = user("aude");
const zed = user("zed");
const opal = user("opal");
const externalDns: Principal = {
  kind: "ServiceAccount",
  name: "system:serviceaccount:kube-system:external-dns",
  groups: [],
  via: "token",
};
const ci: Principal = {
  kind: "ServiceAccount",
  name: "ci",
  groups: [],
  via: "token",
};

function req(
  verb: AccessRequest["verb"],
  resource: AccessRequest["resource"],
  scope: ScopeRequest = CLUSTER,
  self?: boolean,
): AccessRequest {
  return self === undefined
    ? { resource, verb, scope }
    : { resource, verb, scope, self };
}

/** [who, "verb resource", where, allowed]; steps are named from these. */
type Case = [Principal, string, ScopeRequest, boolean];

async function runCases(t: Deno.TestContext, cases: readonly Case[]) {
  for (const [principal, what, scope, want] of cases) {
    const [verb, resource] = what.split(" ") as [
      AccessRequest["verb"],
      AccessRequest["resource"],
    ];
    const tokens = principal.tokenScopes === undefined
      ? ""
      : ` (token ${JSON.stringify(principal.tokenScopes)})`;
    await t.step(
      `${principal.name}${tokens} ${what} at ${scopeLabel(scope)}: ${
        want ? "allowed" : "denied"
      }`,
      () =>
        assert.equal(
          authorize(principal, BINDINGS, { resource, verb, scope }).allowed,
          want,
        ),
    );
  }
}

const C = CLUSTER;

Deno.test("authorize decides by role, scope and subject", async (t) => {
  await runCases(t, [
    // viewer, through a group
    [staff, "list dnszones", C, true],
    [staff, "get config", C, true],
    [staff, "list querylog", C, false],
    [staff, "tail querylog", C, false],
    [staff, "list audit", C, false],
    [staff, "list users", C, false],
    [staff, "list tokens", C, false],
    [staff, "flush cache", C, false],
    // operator
    [olga, "flush cache", C, true],
    [olga, "set blocking", C, true],
    [olga, "refresh blocklists", C, true],
    [olga, "update dnsrecordsets", CORP, true],
    [olga, "create dnszones", CORP, false],
    [olga, "update settings", C, false],
    [olga, "get querylog", C, false],
    // admin, through a group; auditor
    [admin, "update settings", C, true],
    [admin, "export querylog", C, true],
    [aude, "tail querylog", C, true],
    [aude, "list audit", C, true],
    [aude, "list tokens", C, true],
    [aude, "flush cache", C, false],
    [aude, "create dnsrecordsets", CORP, false],
    // zone-admin of two zones: those zones only, nothing cluster-wide
    [zed, "update dnszones", CORP, true],
    [zed, "delete dnszones", ZONE("lab-example"), true],
    [zed, "create dnsrecordsets", CORP, true],
    [zed, "get dnszones", OTHER, false],
    [zed, "get dnszones", ZONE("sub-corp-example"), false],
    [zed, "list dnszones", C, false],
    [zed, "get node", C, false],
    // a zone asked for on a cluster resource is checked at cluster
    [zed, "get blocklists", CORP, false],
    // operator bound to one zone: that zone's record sets
    [opal, "update dnsrecordsets", CORP, true],
    [opal, "get dnszones", CORP, true],
    [opal, "update dnsrecordsets", OTHER, false],
    [opal, "flush cache", C, false],
    // Kubernetes service account, zone-admin at cluster scope
    [externalDns, "update dnsrecordsets", OTHER, true],
    [externalDns, "get node", C, true],
    [externalDns, "list policies", C, false],
    // kudurru's own service account; a user of that name is someone else
    [ci, "refresh blocklists", C, true],
    [user("ci"), "refresh blocklists", C, false],
    // unknown role, the zonegroup and clientgroup seams, no binding
    [user("typo"), "get dnszones", C, false],
    [user("zg"), "get dnszones", CORP, false],
    [user("cg"), "get clientgroups", C, false],
    [user("nobody"), "get node", C, false],
    [{ ...user("anonymous"), via: "anonymous" }, "get node", C, false],
  ]);
});

Deno.test("authorize says which grant allowed it", () => {
  assert.deepEqual(authorize(staff, BINDINGS, req("get", "stats")), {
    allowed: true,
    by: 'viewer at cluster via Group "corp:staff"',
  });
  assert.deepEqual(authorize(zed, BINDINGS, req("get", "dnszones", CORP)), {
    allowed: true,
    by: 'zone-admin at zone:corp-example via User "zed"',
  });
  assert.deepEqual(
    authorize(externalDns, BINDINGS, req("get", "dnszones", CORP)),
    {
      allowed: true,
      by: 'zone-admin at cluster via ServiceAccount "kube-system/external-dns"',
    },
  );
});

Deno.test("authorize says what was missing, at the scope checked", async (t) => {
  const cases: [string, Principal, AccessRequest, Decision][] = [
    ["cluster resource", staff, req("list", "querylog"), {
      allowed: false,
      missing: { resource: "querylog", verb: "list", scope: "cluster" },
      reason: "role",
    }],
    ["zone resource in a zone", zed, req("update", "dnszones", OTHER), {
      allowed: false,
      missing: {
        resource: "dnszones",
        verb: "update",
        scope: "zone:other-example",
      },
      reason: "role",
    }],
    ["zone resource across zones", zed, req("list", "dnsrecordsets"), {
      allowed: false,
      missing: { resource: "dnsrecordsets", verb: "list", scope: "cluster" },
      reason: "role",
    }],
    ["zone on a cluster resource", zed, req("delete", "policies", CORP), {
      allowed: false,
      missing: { resource: "policies", verb: "delete", scope: "cluster" },
      reason: "role",
    }],
    ["a verb the resource lacks", admin, req("flush", "dnszones"), {
      allowed: false,
      missing: { resource: "dnszones", verb: "flush", scope: "cluster" },
      reason: "role",
    }],
    [
      "the token, not the owner",
      user("ada", ["corp:admins"], [{ role: "viewer" }]),
      req("flush", "cache"),
      {
        allowed: false,
        missing: { resource: "cache", verb: "flush", scope: "cluster" },
        reason: "token",
      },
    ],
  ];
  for (const [name, principal, request, want] of cases) {
    await t.step(
      name,
      () => assert.deepEqual(authorize(principal, BINDINGS, request), want),
    );
  }
});

Deno.test("authorize gives a token its owner's rights intersected with its scopes", async (t) => {
  const ada = (scopes?: TokenScope[]) => user("ada", ["corp:admins"], scopes);
  const dashboard: TokenScope[] = [{ role: "viewer" }];
  const corpOnly: TokenScope[] = [{ role: "zone-admin", scope: CORP }];
  await runCases(t, [
    // no scopes, or an empty list: the owner's full rights
    [ada(), "update settings", C, true],
    [ada([]), "update settings", C, true],
    // a read-only token of an admin
    [ada(dashboard), "get config", C, true],
    [ada(dashboard), "set blocking", C, false],
    [ada(dashboard), "list querylog", C, false],
    // an admin token of a viewer stays a viewer
    [user("sam", ["corp:staff"], [{ role: "admin" }]), "get blocking", C, true],
    [
      user("sam", ["corp:staff"], [{ role: "admin" }]),
      "set blocking",
      C,
      false,
    ],
    // a token for one zone
    [ada(corpOnly), "update dnsrecordsets", CORP, true],
    [ada(corpOnly), "update dnsrecordsets", OTHER, false],
    [ada(corpOnly), "get node", C, false],
    // a cluster token of a zone-admin: still its zones only
    [user("zed", [], [{ role: "zone-admin" }]), "get dnszones", CORP, true],
    [user("zed", [], [{ role: "zone-admin" }]), "get dnszones", OTHER, false],
    // any one scope may grant
    [ada([...dashboard, { role: "operator" }]), "flush cache", C, true],
    // unknown roles and malformed scopes: nothing
    [ada([{ role: "root" }]), "get node", C, false],
    [
      ada([{ role: "admin", scope: { kind: "zone", name: "" } }]),
      "get dnszones",
      ZONE(""),
      false,
    ],
  ]);
});

Deno.test("authorize lets anyone manage their own tokens and sessions", async (t) => {
  const nobody = user("nobody");
  const narrowed = user("nobody", [], [{ role: "viewer" }]);
  const cases: [string, Principal, AccessRequest, boolean][] = [
    ["own token list", nobody, req("list", "tokens", CLUSTER, true), true],
    ["own token create", nobody, req("create", "tokens", CLUSTER, true), true],
    [
      "own session delete (logout)",
      nobody,
      req("delete", "sessions", CLUSTER, true),
      true,
    ],
    ["own user read", nobody, req("get", "users", CLUSTER, true), true],
    ["own user update", nobody, req("update", "users", CLUSTER, true), true],
    ["not someone else's tokens", nobody, req("list", "tokens"), false],
    [
      "own user may not be deleted by itself",
      nobody,
      req("delete", "users", CLUSTER, true),
      false,
    ],
    [
      "self means nothing on other resources",
      nobody,
      req("get", "config", CLUSTER, true),
      false,
    ],
    [
      "scoped token reads own tokens",
      narrowed,
      req("list", "tokens", CLUSTER, true),
      true,
    ],
    [
      "scoped token may not mint a token",
      narrowed,
      req("create", "tokens", CLUSTER, true),
      false,
    ],
    [
      "anonymous owns nothing",
      { ...nobody, via: "anonymous" },
      req("delete", "sessions", CLUSTER, true),
      false,
    ],
  ];
  for (const [name, principal, request, want] of cases) {
    await t.step(
      name,
      () => assert.equal(authorize(principal, BINDINGS, request).allowed, want),
    );
  }
  assert.deepEqual(
    authorize(narrowed, BINDINGS, req("create", "tokens", CLUSTER, true)),
    {
      allowed: false,
      missing: { resource: "tokens", verb: "create", scope: "cluster" },
      reason: "token",
    },
  );
});

Deno.test("visibleZones shows all with cluster read, else the bound zones", async (t) => {
  const zones = ["corp-example", "lab-example", "other-example"];
  const cases: [string, Principal, string[]][] = [
    ["viewer sees all", staff, zones],
    ["zone-admin sees its zones", zed, ["corp-example", "lab-example"]],
    ["zone-scoped operator sees its zone", opal, ["corp-example"]],
    [
      "admin token narrowed to a zone",
      user("ada", ["corp:admins"], [{ role: "viewer", scope: CORP }]),
      ["corp-example"],
    ],
    ["nobody sees none", user("nobody"), []],
    ["unknown role sees none", user("typo"), []],
  ];
  for (const [name, principal, want] of cases) {
    await t.step(
      name,
      () => assert.deepEqual(visibleZones(principal, BINDINGS, zones), want),
    );
  }
  assert.deepEqual(
    visibleZones(opal, BINDINGS, zones, "dnsrecordsets"),
    ["corp-example"],
  );
});

Deno.test("creatorBinding binds no one who already administers the new zone", async (t) => {
  const cases: [string, Principal, string][] = [
    ["admin", admin, "new-example"],
    ["cluster zone-admin", externalDns, "new-example"],
    ["zone-admin re-creating its zone", zed, "corp-example"],
    [
      "admin through a narrowed token",
      user("ada", ["corp:admins"], [{ role: "viewer" }]),
      "new-example",
    ],
    ["operator, who may not create zones", olga, "new-example"],
    ["zone-admin, another zone", zed, "new-example"],
    ["anonymous", { ...admin, via: "anonymous" }, "new-example"],
  ];
  for (const [name, principal, zone] of cases) {
    await t.step(
      name,
      () => assert.equal(creatorBinding(principal, BINDINGS, zone), undefined),
    );
  }
});

Deno.test("creatorBinding has nothing to add while every zone creator administers zones", () => {
  // The path that returns a binding opens only when a role may create zones
  // without holding the rest of zone-admin's rights there (say, operators
  // allowed to add zones); this pins today's table, so such a change shows
  // up here and gets its own cases.
  for (const role of ROLES) {
    if (!roleGrants(role, "dnszones", "create")) continue;
    for (const p of PERMISSIONS) {
      if (p.roles.includes("zone-admin") && isZoneScoped(p.resource)) {
        assert.ok(
          roleGrants(role, p.resource, p.verb),
          `${role} ${p.verb} ${p.resource}`,
        );
      }
    }
  }
});
