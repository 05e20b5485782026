import assert from "node:assert/strict";
import type { Policy } from "../api/v1alpha1/policy.ts";
import { resolvePolicy } from "./policy_refs.ts";

function policy(spec: Partial<Policy["spec"]>): Policy {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "Policy",
    metadata: { name: "kids", namespace: "home" },
    spec: { allowOnly: false, priority: 0, ...spec },
  } as Policy;
}

const modes = {
  listModes: new Map<string, "block" | "allow">([
    ["home/ads", "block"],
    ["home/games", "block"],
    ["home/school", "allow"],
    ["other/ads", "block"],
  ]),
};

Deno.test("resolvePolicy keys references in the policy's namespace and sorts lists by mode", () => {
  const warnings: string[] = [];
  const data = resolvePolicy(
    policy({
      clientGroupRefs: ["kids"],
      blockListRefs: ["ads", "school", "missing", "ads"],
      allowListRefs: ["games"],
      priority: 10,
      blockMode: "nxdomain",
      blockTTL: "1m",
      upstreamGroup: "filtered",
      schedule: { start: "20:00", end: "07:00" },
      queryLog: false,
    }),
    modes,
    (m) => warnings.push(m),
  );
  assert.deepEqual(data, {
    key: "home/kids",
    priority: 10,
    groups: ["home/kids"],
    blockLists: ["home/ads"],
    // A list of mode allow among blockListRefs allows; an allowListRef
    // makes any list's rules allow.
    allowLists: ["home/school", "home/games"],
    allowOnly: false,
    schedule: { start: "20:00", end: "07:00" },
    upstreamGroup: "filtered",
    blockMode: "nxdomain",
    blockTTL: 60,
    queryLog: false,
  });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /"home\/missing", which does not exist/);
});

Deno.test("resolvePolicy leaves unset settings unset", () => {
  const data = resolvePolicy(policy({}), modes, () => {});
  assert.deepEqual(data, {
    key: "home/kids",
    priority: 0,
    groups: [],
    blockLists: [],
    allowLists: [],
    allowOnly: false,
  });
});

Deno.test("resolvePolicy says which accepted fields it does not apply yet", () => {
  const warnings: string[] = [];
  resolvePolicy(
    policy({ blockedServices: ["tiktok"], safeSearch: true }),
    modes,
    (m) => warnings.push(m),
  );
  assert.deepEqual(warnings, [
    'Policy "home/kids" sets blockedServices, which this version does not apply yet; it is ignored',
    'Policy "home/kids" sets safeSearch, which this version does not apply yet; it is ignored',
  ]);
});

Deno.test("resolvePolicy reports an upstream group that does not exist and keeps it", async (t) => {
  const targets = { ...modes, upstreamGroups: ["default", "filtered"] };
  await t.step("a missing group: warned, kept, so queries SERVFAIL", () => {
    const warnings: string[] = [];
    const data = resolvePolicy(
      policy({ upstreamGroup: "kidz" }),
      targets,
      (m) => warnings.push(m),
    );
    // Kept: falling back to another group would send the clients' names
    // where the policy says they must not go.
    assert.equal(data.upstreamGroup, "kidz");
    assert.deepEqual(warnings, [
      'Policy "home/kids" upstreamGroup names no upstream group "kidz" ' +
      "(groups: default, filtered); its clients' forwarded queries are " +
      "answered SERVFAIL",
    ]);
  });
  await t.step("an existing group: silent", () => {
    const warnings: string[] = [];
    resolvePolicy(
      policy({ upstreamGroup: "filtered" }),
      targets,
      (m) => warnings.push(m),
    );
    assert.deepEqual(warnings, []);
  });
});
