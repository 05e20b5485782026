import assert from "node:assert/strict";
import { countRules } from "./list_counts.ts";

Deno.test("countRules counts rules and keeps examples of the lines it could not use", () => {
  const counts = countRules(
    "! Title: mine\n||ads.example^\n||x.example^$third-party\nnot a name!\n",
    "adblock",
  );
  assert.equal(counts.format, "adblock");
  assert.equal(counts.ruleCount, 1);
  assert.equal(counts.invalid, 1);
  assert.equal(counts.unsupported, 1);
  assert.equal(counts.title, "mine");
  assert.equal(counts.examples?.length, 2);
  assert.match(counts.examples![0]!, /^line 3: /);
  assert.deepEqual(countRules("a.example\n", "domains").examples, undefined);
});
