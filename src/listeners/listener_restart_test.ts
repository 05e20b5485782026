import assert from "node:assert/strict";
import { restartDelayMs } from "./listener_restart.ts";

Deno.test("restartDelayMs: five restarts a minute at once, then 1 s doubling to 30 s", () => {
  assert.deepEqual(
    [0, 4, 5, 6, 7, 9, 10, 50].map(restartDelayMs),
    [0, 0, 1000, 2000, 4000, 16000, 30000, 30000],
  );
});
