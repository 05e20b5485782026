/**
 * The layering of src/ (docs/design.md#layering) checked on the real import
 * graph, and each rule shown to catch the import it forbids.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ImportEdge,
  layeringViolations,
  readImportGraph,
} from "./layering.ts";

const SRC = join(import.meta.dirname!, "..", "src");

Deno.test("layering src keeps every import rule", async () => {
  const edges = await readImportGraph(SRC);
  assert.ok(edges.length > 1000, `read ${edges.length} imports`);
  const violations = layeringViolations(edges);
  assert.deepEqual(
    violations.map((v) => `${v.rule}: ${v.detail}`),
    [],
  );
});

Deno.test("layering rules each catch what they forbid", async (t) => {
  const cases: { name: string; edges: ImportEdge[]; rule: string }[] = [
    {
      name: "a stage importing another stage",
      edges: [{
        from: "stages/cache/cache.ts",
        to: "stages/upstream/routing.ts",
      }],
      rule: "a stage imports no other stage",
    },
    {
      name: "a stage importing a store driver",
      edges: [{
        from: "stages/blocking/blocking.ts",
        to: "store/sqlite/sqlite_store.ts",
      }],
      rule: "a stage imports no store driver",
    },
    {
      name: "listeners importing a stage",
      edges: [{
        from: "listeners/listener_worker.ts",
        to: "stages/cache/cache.ts",
      }],
      rule: "listeners import no stage",
    },
    {
      name: "dns importing from above it",
      edges: [{ from: "dns/wire/response.ts", to: "zone/types.ts" }],
      rule: "dns imports nothing above it",
    },
    {
      name: "a cycle through three folders",
      edges: [
        { from: "zone/lookup.ts", to: "pipeline/request.ts" },
        { from: "pipeline/request.ts", to: "upstream/types.ts" },
        { from: "upstream/types.ts", to: "zone/types.ts" },
      ],
      rule: "no cycle between top-level folders",
    },
    {
      name: "a barrel",
      edges: [{ from: "cli/get.ts", to: "store/mod.ts" }],
      rule: "no barrels",
    },
    {
      name: "a test under src importing from tests/",
      edges: [{ from: "cli/cli_test.ts", to: "../tests/serve_process.ts" }],
      rule: "src imports no tests",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.deepEqual(
        layeringViolations(c.edges).map((v) => v.rule),
        [c.rule],
      );
    });
  }
  await t.step("tests may reach across the rules", () => {
    assert.deepEqual(
      layeringViolations([
        { from: "dns/wire/query_test.ts", to: "pipeline/testing/fixtures.ts" },
        { from: "stages/cache/testdata/x.ts", to: "stages/upstream/y.ts" },
      ]),
      [],
    );
  });
});
