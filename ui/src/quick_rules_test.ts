import { deepEqual, equal } from "node:assert/strict";
import {
  groupScope,
  listName,
  type ListObject,
  plan,
  type PolicyObject,
  ruleFor,
} from "./quick_rules.ts";

const meta = (namespace: string, name: string, rv = "7") => ({
  namespace,
  name,
  resourceVersion: rv,
});
const policies: PolicyObject[] = [
  {
    metadata: meta("default", "default"),
    spec: { clientGroupRefs: ["default"], blockListRefs: ["starter"] },
  },
  {
    metadata: meta("default", "kids", "9"),
    spec: { clientGroupRefs: ["kids"], blockListRefs: ["starter"] },
  },
];

Deno.test("quick rules: blocking for everyone makes the list and adds it to every policy; undo reverses each write", () => {
  const writes = plan(
    "Ads.Example.com.",
    "block",
    { kind: "everyone" },
    [],
    policies,
  )!;
  deepEqual(writes.map((w) => `${w.method} ${w.path}`), [
    "POST namespaces/default/blocklists",
    "PATCH namespaces/default/policies/default",
    "PATCH namespaces/default/policies/kids",
  ]);
  deepEqual((writes[0]!.body as ListObject).spec, {
    mode: "block",
    sources: [{ inline: "||ads.example.com^\n", format: "adblock" }],
  });
  deepEqual(writes[1]!.body, {
    spec: { blockListRefs: ["starter", "quick-block"] },
  });
  equal(writes[1]!.ifMatch, "7");
  deepEqual(writes[0]!.undo, {
    method: "DELETE",
    path: "namespaces/default/blocklists/quick-block",
  });
  deepEqual(writes[2]!.undo.body, { spec: { blockListRefs: ["starter"] } });
});

Deno.test("quick rules: a second rule goes into the list there is; a rule there already writes nothing", () => {
  const list: ListObject = {
    metadata: meta("default", "quick-allow-kids", "12"),
    spec: {
      mode: "allow",
      sources: [{ inline: "||a.test^\n", format: "adblock" }],
    },
  };
  const kids = { kind: "group" as const, namespace: "default", name: "kids" };
  const withRef: PolicyObject[] = [{
    metadata: meta("default", "kids", "9"),
    spec: { clientGroupRefs: ["kids"], allowListRefs: ["quick-allow-kids"] },
  }];
  const writes = plan("b.test", "allow", kids, [list], withRef)!;
  deepEqual(writes.map((w) => `${w.method} ${w.path}`), [
    "PATCH namespaces/default/blocklists/quick-allow-kids",
  ]);
  deepEqual(writes[0]!.body, {
    spec: {
      sources: [{ inline: "||a.test^\n||b.test^\n", format: "adblock" }],
    },
  });
  deepEqual(writes[0]!.undo.body, { spec: { sources: list.spec.sources } });
  deepEqual(plan("a.test", "allow", kids, [list], withRef), []);
});

Deno.test("quick rules: a group no policy names gets nothing; the policy without refs loses the member on undo", () => {
  deepEqual(
    plan("x.test", "block", groupScope("default/nobody")!, [], policies),
    undefined,
  );
  const bare: PolicyObject[] = [{
    metadata: meta("lab", "p"),
    spec: { clientGroupRefs: ["g"] },
  }];
  const writes = plan("x.test", "allow", groupScope("lab/g")!, [], bare)!;
  deepEqual(writes[1]!.body, { spec: { allowListRefs: ["quick-allow-g"] } });
  deepEqual(writes[1]!.undo.body, { spec: { allowListRefs: null } });
});

Deno.test("quick rules: names and rules", () => {
  equal(ruleFor("Tracker.Example."), "||tracker.example^");
  equal(listName("block", { kind: "everyone" }), "quick-block");
  equal(
    listName("allow", { kind: "group", namespace: "d", name: "x".repeat(80) })
      .length,
    63,
  );
  equal(groupScope("nogroup"), undefined);
});
