/** The starter BlockList: a valid object whose embedded list parses cleanly. */
import assert from "node:assert/strict";
import { validateObject } from "../../api/v1alpha1/validate.ts";
import { bootstrapObjects } from "../../objects/bootstrap.ts";
import { parseList } from "../parse/parse.ts";
import type { RuleInput } from "../types.ts";
import {
  STARTER_LIST_NAME,
  STARTER_LIST_TEXT,
  STARTER_SOURCE_NAME,
  starterBlockList,
} from "./starter.ts";

Deno.test("the starter BlockList validates once bootstrap gives it a namespace", () => {
  const list = starterBlockList();
  assert.equal(list.metadata.namespace, undefined);
  const r = validateObject({
    ...list,
    metadata: { ...list.metadata, namespace: "default" },
  });
  assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.issues));
  const spec = r.object.spec as {
    sources: { inline?: string; name?: string; format: string }[];
  };
  assert.equal(spec.sources.length, 1);
  assert.equal(spec.sources[0]?.inline, STARTER_LIST_TEXT);
  assert.equal(spec.sources[0]?.name, STARTER_SOURCE_NAME);
});

Deno.test("bootstrap seeds it and points the default Policy at it", async () => {
  const seeds = await bootstrapObjects({
    starterBlockList: () => Promise.resolve(starterBlockList()),
  });
  const list = seeds.find((s) => s.kind === "BlockList");
  assert.equal(list?.metadata.namespace, "default");
  const policy = seeds.find((s) => s.kind === "Policy");
  assert.deepEqual(
    (policy?.spec as { blockListRefs?: string[] }).blockListRefs,
    [STARTER_LIST_NAME],
  );
});

Deno.test("every line of the starter list is a rule or a comment", () => {
  const rules: RuleInput[] = [];
  const stats = parseList(STARTER_LIST_TEXT, "domains", {
    rule: (r) => rules.push(r),
  });
  assert.equal(stats.invalid, 0, stats.examples.join("\n"));
  assert.equal(stats.unsupported, 0, stats.examples.join("\n"));
  assert.equal(stats.title, "kudurru starter list");
  const lines = STARTER_LIST_TEXT.split("\n").map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  assert.equal(stats.rules, lines.length);
  assert.ok(
    lines.length >= 150 && lines.length <= 300,
    `${lines.length} names`,
  );
  assert.equal(new Set(lines).size, lines.length, "no duplicates");
  assert.ok(rules.some((r) => r.pattern === "doubleclick.net"));
  // The header says what it is and under which licence it ships.
  assert.match(STARTER_LIST_TEXT, /Apache License 2\.0/);
  assert.match(STARTER_LIST_TEXT, /BlockList/);
});
