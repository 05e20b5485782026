import assert from "node:assert/strict";
import { openCompiledList } from "../blocking/matcher/open.ts";
import { runCompileJob } from "./list_compile_job.ts";

function compile(mode: "block" | "allow", text: string) {
  const result = runCompileJob({
    id: 1,
    meta: { key: "dns/list", name: "list", mode },
    sources: [{ label: "inline", format: "auto", text }],
  });
  assert.ok("data" in result, "compiled");
  return openCompiledList(result.data);
}

Deno.test("in an allow list an @@ line is compiled as written, so the query log quotes it", () => {
  // Any verdict of a list used for allowing allows (the blocking stage's
  // allowedBy; allow_lists_test.ts there runs these compiles through it).
  const allow = compile("allow", "@@||ok.example^\n@@exact.example\n");
  for (const name of ["ok.example", "www.ok.example"]) {
    assert.deepEqual(
      allow.check(name),
      { outcome: "excepted", rule: "@@||ok.example^" },
      name,
    );
  }
  assert.deepEqual(allow.check("exact.example"), {
    outcome: "excepted",
    rule: "@@exact.example",
  });
  assert.equal(allow.check("www.exact.example"), null, "@@x is exact");
});

Deno.test("in a block list an @@ line stays an exception", () => {
  const block = compile("block", "||example^\n@@||ok.example^\n");
  assert.equal(block.check("ok.example")?.outcome, "excepted");
  assert.equal(block.check("ads.example")?.outcome, "matched");
});

Deno.test("a $badfilter line switches the same rule off, across the list's sources", () => {
  const result = runCompileJob({
    id: 2,
    meta: { key: "dns/list", name: "list", mode: "block" },
    sources: [
      {
        label: "a",
        format: "adblock",
        text: "||bad.example^\n||ok.example^\n",
      },
      { label: "b", format: "adblock", text: "||bad.example^$badfilter\n" },
    ],
  });
  assert.ok("data" in result);
  const list = openCompiledList(result.data);
  assert.equal(list.check("bad.example"), null, "switched off");
  assert.equal(list.check("ok.example")?.outcome, "matched");
  assert.equal(result.data.ruleCount, 1);
});
