import assert from "node:assert/strict";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import {
  isRole,
  isZoneScoped,
  permission,
  PERMISSIONS,
  READ_VERBS,
  type Resource,
  RESOURCE_INFO,
  RESOURCES,
  type Role,
  roleGrants,
  ROLES,
  type Verb,
  VERB_HELP,
  VERBS,
} from "./permissions.ts";

/** "resource verb" for every row a role grants. */
function grantsOf(role: Role): Set<string> {
  return new Set(
    PERMISSIONS.filter((p) => p.roles.includes(role)).map((p) =>
      `${p.resource} ${p.verb}`
    ),
  );
}

const READS = PERMISSIONS.filter((p) => READ_VERBS.has(p.verb));
const WRITES = PERMISSIONS.filter((p) => !READ_VERBS.has(p.verb));

Deno.test("PERMISSIONS has one row per verb each resource lists, and no other", () => {
  const keys = PERMISSIONS.map((p) => `${p.resource} ${p.verb}`);
  assert.equal(new Set(keys).size, keys.length, "a (resource, verb) twice");
  const listed = RESOURCES.flatMap((r) =>
    RESOURCE_INFO[r].verbs.map((v) => `${r} ${v}`)
  );
  assert.deepEqual([...keys].sort(), [...listed].sort());
});

Deno.test("PERMISSIONS rows name each role at most once and at least one", () => {
  for (const p of PERMISSIONS) {
    assert.ok(p.roles.length > 0, `${p.resource} ${p.verb} has no role`);
    assert.equal(
      new Set(p.roles).size,
      p.roles.length,
      `${p.resource} ${p.verb}`,
    );
  }
});

Deno.test("PERMISSIONS covers every object kind by its plural", () => {
  for (const kind of KINDS) {
    assert.ok(kind.plural in RESOURCE_INFO, kind.plural);
    assert.deepEqual(
      RESOURCE_INFO[kind.plural as Resource].verbs.slice(0, 5),
      ["get", "list", "create", "update", "delete"],
    );
  }
});

Deno.test("PERMISSIONS verbs are all documented and all used", () => {
  const used = new Set(PERMISSIONS.map((p) => p.verb));
  for (const verb of VERBS) {
    assert.ok(used.has(verb), `${verb} is never used`);
    assert.ok(VERB_HELP[verb].length > 0);
  }
});

Deno.test("PERMISSIONS admin grants everything", () => {
  assert.equal(grantsOf("admin").size, PERMISSIONS.length);
});

Deno.test("PERMISSIONS auditor reads everything and writes nothing", () => {
  const auditor = grantsOf("auditor");
  for (const p of READS) assert.ok(auditor.has(`${p.resource} ${p.verb}`));
  for (const p of WRITES) assert.ok(!auditor.has(`${p.resource} ${p.verb}`));
});

Deno.test("PERMISSIONS viewer reads all but the query log, audit log and identities, writes nothing", () => {
  const hidden: Resource[] = [
    "querylog",
    "audit",
    "users",
    "serviceaccounts",
    "tokens",
    "rolebindings",
    "sessions",
  ];
  const viewer = grantsOf("viewer");
  for (const p of READS) {
    assert.equal(
      viewer.has(`${p.resource} ${p.verb}`),
      !hidden.includes(p.resource),
      `${p.resource} ${p.verb}`,
    );
  }
  for (const p of WRITES) assert.ok(!viewer.has(`${p.resource} ${p.verb}`));
});

Deno.test("PERMISSIONS operator is a viewer plus the day-to-day writes", () => {
  const extra = [...grantsOf("operator")].filter((k) =>
    !grantsOf("viewer").has(k)
  );
  assert.deepEqual(extra.sort(), [
    "blocking set",
    "blocklists create",
    "blocklists delete",
    "blocklists refresh",
    "blocklists update",
    "cache flush",
    "clientgroups create",
    "clientgroups delete",
    "clientgroups update",
    "dnsrecordsets create",
    "dnsrecordsets delete",
    "dnsrecordsets update",
    "policies create",
    "policies delete",
    "policies update",
  ]);
  for (const k of grantsOf("viewer")) assert.ok(grantsOf("operator").has(k), k);
});

Deno.test("PERMISSIONS zone-admin holds zone resources, and reads only node beyond them", () => {
  for (const p of PERMISSIONS) {
    const has = p.roles.includes("zone-admin");
    if (isZoneScoped(p.resource)) {
      assert.ok(has, `${p.resource} ${p.verb}`);
    } else {
      assert.equal(
        has,
        p.resource === "node" && p.verb === "get",
        `${p.resource} ${p.verb}`,
      );
    }
  }
});

Deno.test("PERMISSIONS self-service is only on a principal's own kinds", () => {
  const self = PERMISSIONS.filter((p) => p.self === true).map((p) =>
    `${p.resource} ${p.verb}`
  );
  assert.deepEqual(self, [
    "users get",
    "users update",
    "tokens get",
    "tokens list",
    "tokens create",
    "tokens delete",
    "sessions get",
    "sessions list",
    "sessions delete",
  ]);
});

Deno.test("roleGrants answers from the table and refuses unknown names", async (t) => {
  const cases: [string, string, string, boolean][] = [
    ["viewer", "dnszones", "get", true],
    ["viewer", "querylog", "list", false],
    ["auditor", "querylog", "tail", true],
    ["operator", "cache", "flush", true],
    ["operator", "dnszones", "create", false],
    ["zone-admin", "dnsrecordsets", "delete", true],
    ["viewr", "dnszones", "get", false],
    ["Admin", "dnszones", "get", false],
    ["admin", "widgets", "get", false],
    ["admin", "dnszones", "patch", false],
    ["admin", "cache", "get", false],
    ["toString", "dnszones", "get", false],
  ];
  for (const [role, resource, verb, want] of cases) {
    await t.step(
      `${role} ${verb} ${resource}`,
      () => assert.equal(roleGrants(role, resource, verb), want),
    );
  }
});

Deno.test("permission finds a row or nothing", () => {
  assert.deepEqual(permission("blocking", "set")?.roles, ["operator", "admin"]);
  assert.equal(permission("blocking", "flush"), undefined);
  assert.equal(permission("constructor", "get"), undefined);
});

Deno.test("isRole knows the five roles only", () => {
  for (const role of ROLES) assert.ok(isRole(role));
  for (const name of ["", "root", "zone_admin", "__proto__"]) {
    assert.ok(!isRole(name), name);
  }
});

Deno.test("isZoneScoped names dnszones and dnsrecordsets only", () => {
  assert.deepEqual(RESOURCES.filter(isZoneScoped), [
    "dnszones",
    "dnsrecordsets",
  ]);
  assert.ok(!isZoneScoped("toString"));
  assert.ok(!isZoneScoped("unknown"));
});

Deno.test("READ_VERBS are verbs", () => {
  for (const verb of READ_VERBS) {
    assert.ok((VERBS as readonly Verb[]).includes(verb));
  }
});
