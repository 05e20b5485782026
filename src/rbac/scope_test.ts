import assert from "node:assert/strict";
import {
  type BindingScope,
  bindingScopeLabel,
  CLUSTER,
  effectiveScope,
  scopeCovers,
  scopeLabel,
  type ScopeRequest,
} from "./scope.ts";

const ZONE_A: ScopeRequest = { kind: "zone", name: "a" };

Deno.test("scopeCovers grants cluster everywhere and a zone only itself", async (t) => {
  const cases: [string, BindingScope, ScopeRequest, boolean][] = [
    ["cluster covers cluster", { kind: "cluster" }, CLUSTER, true],
    ["cluster covers a zone", { kind: "cluster" }, ZONE_A, true],
    ["empty name is no name", { kind: "cluster", name: "" }, ZONE_A, true],
    ["zone covers itself", { kind: "zone", name: "a" }, ZONE_A, true],
    ["zone not another", { kind: "zone", name: "b" }, ZONE_A, false],
    ["zone not cluster", { kind: "zone", name: "a" }, CLUSTER, false],
    ["zone without name", { kind: "zone" }, ZONE_A, false],
    ["zone with empty name", { kind: "zone", name: "" }, {
      kind: "zone",
      name: "",
    }, false],
    ["named cluster", { kind: "cluster", name: "a" }, ZONE_A, false],
    ["zonegroup seam", { kind: "zonegroup", name: "team=a" }, ZONE_A, false],
    ["clientgroup seam", { kind: "clientgroup", name: "kids" }, CLUSTER, false],
  ];
  for (const [name, grant, request, want] of cases) {
    await t.step(name, () => assert.equal(scopeCovers(grant, request), want));
  }
});

Deno.test("effectiveScope keeps a zone only on zone-scoped resources", () => {
  assert.deepEqual(effectiveScope("dnszones", ZONE_A), ZONE_A);
  assert.deepEqual(effectiveScope("dnsrecordsets", ZONE_A), ZONE_A);
  assert.deepEqual(effectiveScope("blocklists", ZONE_A), CLUSTER);
  assert.deepEqual(effectiveScope("dnszones", CLUSTER), CLUSTER);
});

Deno.test("scopeLabel writes cluster or zone:<name>", () => {
  assert.equal(scopeLabel(CLUSTER), "cluster");
  assert.equal(scopeLabel(ZONE_A), "zone:a");
  assert.equal(bindingScopeLabel({ kind: "cluster" }), "cluster");
  assert.equal(bindingScopeLabel({ kind: "cluster", name: "" }), "cluster");
  assert.equal(
    bindingScopeLabel({ kind: "zonegroup", name: "team=a" }),
    "zonegroup:team=a",
  );
});
