import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import type { Source } from "./sources.ts";
import { FILE_SETTLE_MS, findUnsettledFiles } from "./unsettled_files.ts";
import { group } from "./testdata/fixtures.ts";

const NOW = 1_800_000_000_000;
const MANAGER = "file:objects.d/more.yaml";

function fileChangedAgo(ms: number): Source {
  return {
    kind: "file",
    name: "objects.d/more.yaml",
    manager: MANAGER,
    path: "/etc/kudurru/objects.d/more.yaml",
    text: "",
    modifiedMs: NOW - ms,
  };
}

function storedBy(
  manager: string,
  ...names: string[]
): Map<string, KObject> {
  return new Map(names.map((n) => {
    const obj = group(n);
    obj.metadata.managedBy = manager;
    return [`ClientGroup/default/${n}`, obj];
  }));
}

Deno.test("findUnsettledFiles holds a file changed within the settle time that dropped an object, until it can have settled", () => {
  const found = findUnsettledFiles({
    sources: [fileChangedAgo(1_500)],
    declared: new Map([[MANAGER, new Set(["ClientGroup/default/a1"])]]),
    stored: storedBy(MANAGER, "a1", "a3"),
    now: NOW,
  });
  assert.deepEqual([...found.held], [MANAGER]);
  assert.equal(found.retryAfterMs, FILE_SETTLE_MS - 1_500);
  assert.equal(
    found.diagnoses[0]?.message,
    'Holding "objects.d/more.yaml" for 3.5 s: it changed 1.5 s ago and no longer declares ClientGroup/default/a3',
  );
});

Deno.test("findUnsettledFiles holds nothing back when there is no write to wait for", async (t) => {
  const gone = group("a3");
  gone.metadata.managedBy = MANAGER;
  gone.metadata.deletionTimestamp = new Date(NOW).toISOString();
  const cases: [string, Source, Map<string, KObject>][] = [
    ["it stood still", fileChangedAgo(FILE_SETTLE_MS), storedBy(MANAGER, "a3")],
    ["it dropped nothing", fileChangedAgo(0), storedBy(MANAGER, "a1")],
    [
      "it dropped another file's object",
      fileChangedAgo(0),
      storedBy("file:x", "a3"),
    ],
    [
      "its clock is far off",
      fileChangedAgo(-2 * FILE_SETTLE_MS),
      storedBy(MANAGER, "a3"),
    ],
    [
      "what it dropped is being deleted",
      fileChangedAgo(0),
      new Map([["ClientGroup/default/a3", gone]]),
    ],
  ];
  for (const [name, source, stored] of cases) {
    await t.step(name, () => {
      const found = findUnsettledFiles({
        sources: [source],
        declared: new Map([
          [MANAGER, new Set(["ClientGroup/default/a1"])],
          ["file:objects.d/b.yaml", new Set(["ClientGroup/default/b"])],
        ]),
        stored,
        now: NOW,
      });
      assert.deepEqual([found.held.size, found.retryAfterMs], [0, undefined]);
    });
  }
});
