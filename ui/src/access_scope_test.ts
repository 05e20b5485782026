import { deepEqual, equal } from "node:assert/strict";
import {
  bindingName,
  grantLabel,
  scopeLabel,
  scopeOf,
} from "./access_scope.ts";

Deno.test("scopeLabel and grantLabel read as the API's messages do", () => {
  equal(scopeLabel(undefined), "cluster");
  equal(scopeLabel({ kind: "cluster" }), "cluster");
  equal(scopeLabel({ kind: "zone", name: "home" }), "zone:home");
  equal(grantLabel({ role: "viewer" }), "viewer at cluster");
  equal(
    grantLabel({ role: "zone-admin", scope: { kind: "zone", name: "home" } }),
    "zone-admin at zone:home",
  );
});

Deno.test("scopeOf: a cluster scope has no name, a zone's is trimmed", () => {
  deepEqual(scopeOf("cluster", "ignored"), { kind: "cluster" });
  deepEqual(scopeOf("zone", " home "), { kind: "zone", name: "home" });
});

Deno.test("bindingName makes a valid object name from subject, role and zone", () => {
  const name = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  equal(bindingName("bob", "viewer", { kind: "cluster" }), "bob-viewer");
  equal(
    bindingName("corp:Ops Team", "zone-admin", { kind: "zone", name: "home" }),
    "corp-ops-team-zone-admin-home",
  );
  equal(bindingName("__x__", "admin", { kind: "cluster" }), "x-admin");
  const long = bindingName("a".repeat(70), "viewer", { kind: "cluster" });
  equal(long.length <= 63, true);
  equal(name.test(long), true);
  equal(
    name.test(bindingName("a".repeat(62) + "-", "b", { kind: "cluster" })),
    true,
  );
});
