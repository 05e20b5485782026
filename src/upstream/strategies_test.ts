import assert from "node:assert/strict";
import { planAttempts } from "./strategies.ts";
import { seededRandom } from "./testdata/scripted_upstream.ts";

Deno.test("planAttempts strict keeps configuration order, one at a time", () => {
  assert.deepEqual(planAttempts("strict", [90, 10, 50]), {
    order: [0, 1, 2],
    parallel: 1,
  });
});

Deno.test("planAttempts parallel_best asks the two best scores first", () => {
  assert.deepEqual(planAttempts("parallel_best", [90, 10, 50]), {
    order: [1, 2, 0],
    parallel: 2,
  });
});

Deno.test("planAttempts parallel_best with one server asks one", () => {
  assert.deepEqual(planAttempts("parallel_best", [5]), {
    order: [0],
    parallel: 1,
  });
});

Deno.test("planAttempts random puts every server first about equally", () => {
  const random = seededRandom(1);
  const firsts = [0, 0, 0];
  for (let i = 0; i < 3000; i++) {
    const { order } = planAttempts("random", [1, 100, 1000], random);
    assert.deepEqual([...order].sort(), [0, 1, 2]);
    firsts[order[0]!]!++;
  }
  for (const count of firsts) {
    assert.ok(count > 850 && count < 1150, `${firsts}`);
  }
});

Deno.test("planAttempts rtt_weighted favours low scores in proportion", () => {
  const random = seededRandom(2);
  const firsts = [0, 0];
  for (let i = 0; i < 2000; i++) {
    firsts[planAttempts("rtt_weighted", [10, 40], random).order[0]!]!++;
  }
  // Weights 1/10 and 1/40: the first server leads 4 to 1.
  const share = firsts[0]! / 2000;
  assert.ok(share > 0.75 && share < 0.85, `share ${share}`);
});

Deno.test("planAttempts strict and random ask servers failing lately last, in their order", () => {
  const failing = [true, false, true, false];
  assert.deepEqual(
    planAttempts("strict", [2050, 40, 2100, 60], Math.random, failing).order,
    [1, 3, 0, 2],
  );
  const random = seededRandom(3);
  for (let i = 0; i < 50; i++) {
    const { order } = planAttempts(
      "random",
      [2050, 40, 2100, 60],
      random,
      failing,
    );
    assert.deepEqual(order.slice(0, 2).sort(), [1, 3]);
    assert.deepEqual(order.slice(2).sort(), [0, 2]);
  }
  // Nothing to prefer when every server fails: configuration order.
  assert.deepEqual(
    planAttempts("strict", [2000, 2000], Math.random, [true, true]).order,
    [0, 1],
  );
});
