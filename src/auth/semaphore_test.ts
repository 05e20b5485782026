import assert from "node:assert/strict";
import { Semaphore } from "./semaphore.ts";

class FullError extends Error {}

/** A task that runs until `finish` is called. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => finish = resolve);
  return { done, finish };
}

Deno.test("Semaphore runs at most its limit at once, first come first served", async () => {
  const slots = new Semaphore(2, 10, () => new FullError());
  const gates = Array.from({ length: 5 }, gate);
  const started: number[] = [];
  const runs = gates.map((g, i) =>
    slots.run(async () => {
      started.push(i);
      await g.done;
      return i;
    })
  );
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  assert.equal(slots.active, 2);
  assert.equal(slots.queued, 3);
  gates[1]!.finish();
  assert.equal(await runs[1], 1);
  assert.deepEqual(started, [0, 1, 2]);
  for (const g of gates) g.finish();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(slots.active, 0);
  assert.equal(slots.queued, 0);
});

Deno.test("Semaphore refuses a task at once when the queue is full, without running it", async () => {
  const slots = new Semaphore(1, 2, () => new FullError("full"));
  const g = gate();
  const runs = [0, 1, 2].map(() => slots.run(() => g.done));
  let ran = false;
  await assert.rejects(
    slots.run(() => {
      ran = true;
      return Promise.resolve();
    }),
    FullError,
  );
  assert.equal(ran, false);
  g.finish();
  await Promise.all(runs);
  // Drained: there is room again.
  assert.equal(await slots.run(() => Promise.resolve("again")), "again");
});

Deno.test("Semaphore frees the slot of a task that fails", async () => {
  const slots = new Semaphore(1, 0, () => new FullError());
  await assert.rejects(slots.run(() => Promise.reject(new Error("boom"))), {
    message: "boom",
  });
  assert.equal(slots.active, 0);
  assert.equal(await slots.run(() => Promise.resolve(1)), 1);
});

Deno.test("Semaphore refuses limits that are not whole numbers", () => {
  const full = () => new FullError();
  assert.throws(() => new Semaphore(0, 1, full), /at least 1/);
  assert.throws(() => new Semaphore(1.5, 1, full), /at least 1/);
  assert.throws(() => new Semaphore(1, -1, full), /at least 0/);
});
