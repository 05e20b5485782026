/**
 * A miss allocates nothing (docs/design.md#blocking-engine): once the lookup is
 * optimised, asking thousands of misses leaves the JS heap as it was.
 * (Allocations would show as growth: 2,000 lookups of even one small object
 * each is 32 KB, far from a young-generation collection that could hide it.)
 */

import assert from "node:assert/strict";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import { BLOCK, ruleFrom } from "./testdata/rules.ts";

Deno.test("allocation: a miss allocates nothing", () => {
  const matcher = openCompiledList(compileRules(BLOCK, [
    ...Array.from(
      { length: 2000 },
      (_, i) => ruleFrom(`||ads${i}.tracker${i % 50}.example^`),
    ),
    ...Array.from({ length: 2000 }, (_, i) => ruleFrom(`host${i}.example`)),
  ]));
  // Flat strings, made before measuring; they miss at every depth.
  const misses = Array.from({ length: 2000 }, (_, i) => {
    const name = [
      `www.site${i}.tracker${i % 50}.example.`,
      `host${i}x.example`,
      `q${i}.test.`,
    ][i % 3]!;
    return new TextDecoder().decode(new TextEncoder().encode(name));
  });
  let found = 0;
  const ask = () => {
    for (const name of misses) if (matcher.check(name) !== null) found++;
  };
  const nothing = () => {};
  const heapGrowth = (run: () => void) => {
    const before = Deno.memoryUsage().heapUsed;
    run();
    return Deno.memoryUsage().heapUsed - before;
  };
  for (let round = 0; round < 300; round++) ask(); // let the JIT settle
  heapGrowth(nothing);
  // What measuring itself costs, then the lookups.
  const growth = heapGrowth(ask) - heapGrowth(nothing);
  assert.equal(found, 0);
  assert.ok(growth < 1024, `2,000 misses grew the heap by ${growth} bytes`);
});
