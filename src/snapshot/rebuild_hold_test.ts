import assert from "node:assert/strict";
import { RebuildHold } from "./rebuild_hold.ts";
import { sleep } from "./testdata/zone_objects.ts";

Deno.test.sanitizer({ ops: true, resources: true });

Deno.test("RebuildHold runs a waiter on a later task when nothing holds", async () => {
  const hold = new RebuildHold();
  let ran = 0;
  hold.whenReleased(() => ran++);
  assert.equal(ran, 0, "not inside whenReleased");
  await sleep(0);
  assert.equal(ran, 1);
});

Deno.test("RebuildHold runs a waiter once the last holder lets go", async () => {
  const hold = new RebuildHold({ maxWaitMs: 10_000 });
  const first = hold.take();
  const second = hold.take();
  let ran = 0;
  hold.whenReleased(() => ran++);
  first();
  first(); // a second release of the same take does nothing
  await sleep(20);
  assert.equal(ran, 0, "the second holder still holds");
  assert.equal(hold.held, true);
  second();
  assert.equal(hold.held, false);
  assert.equal(ran, 0, "not inside release");
  await sleep(0);
  assert.equal(ran, 1);
});

Deno.test("RebuildHold runs a waiter after maxWaitMs when the holder never lets go", async () => {
  const hold = new RebuildHold({ maxWaitMs: 30 });
  const release = hold.take();
  let ran = 0;
  hold.whenReleased(() => ran++);
  await sleep(10);
  assert.equal(ran, 0);
  await sleep(60);
  assert.equal(ran, 1);
  release();
  await sleep(10);
  assert.equal(ran, 1, "not again on the release");
});

Deno.test("RebuildHold runs nothing for a cancelled waiter", async () => {
  const hold = new RebuildHold({ maxWaitMs: 20 });
  const release = hold.take();
  let ran = 0;
  const cancel = hold.whenReleased(() => ran++);
  cancel();
  release();
  await sleep(40);
  assert.equal(ran, 0);
});
