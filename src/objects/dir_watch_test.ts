import assert from "node:assert/strict";
import { watchDirectory } from "./dir_watch.ts";
import { eventually, tempObjectsDir } from "./testdata/fixtures.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("watchDirectory reports a change again settleMs after the last event, for files held as not settled", async () => {
  await using d = await tempObjectsDir();
  const ctl = new AbortController();
  let changes = 0;
  const done = watchDirectory(ctl.signal, {
    dir: d.dir,
    debounceMs: 30,
    settleMs: 300,
    pollIntervalMs: -1,
    onChange: () => changes++,
    onPoll: () => Promise.resolve(),
  });
  try {
    await eventually(() => changes === 2); // the attach's load, and its settle
    await d.write("a.yaml", "");
    await eventually(() => changes === 3);
    await sleep(150);
    assert.equal(changes, 3, "no settle load before settleMs");
    await eventually(() => changes === 4, 1_000);
  } finally {
    ctl.abort();
    await done;
  }
});
