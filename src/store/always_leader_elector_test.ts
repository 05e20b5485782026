import assert from "node:assert/strict";
import { alwaysLeaderElector } from "./always_leader_elector.ts";

/** True when `p` settles within `ms`; false when it is still pending. */
async function settlesWithin(p: Promise<unknown>, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  const winner = await Promise.race([p.then(() => "settled"), late]);
  clearTimeout(timer);
  return winner === "settled";
}

Deno.test("alwaysLeaderElector run leads until the signal aborts", async () => {
  const abort = new AbortController();
  const calls: string[] = [];
  const run = alwaysLeaderElector("node-a").run(
    abort.signal,
    () => calls.push("started"),
    () => calls.push("stopped"),
  );
  assert.equal(await settlesWithin(run, 20), false);
  abort.abort();
  assert.equal(await settlesWithin(run, 1000), true);
  assert.deepEqual(calls, ["started", "stopped"]);
});

Deno.test("alwaysLeaderElector run ends when onStarted aborts the signal", async () => {
  const abort = new AbortController();
  const calls: string[] = [];
  const run = alwaysLeaderElector("node-a").run(
    abort.signal,
    () => {
      calls.push("started");
      abort.abort(); // e.g. the work it starts fails at once and shuts down
    },
    () => calls.push("stopped"),
  );
  assert.equal(await settlesWithin(run, 1000), true, "run never ended");
  assert.deepEqual(calls, ["started", "stopped"]);
});

Deno.test("alwaysLeaderElector run does nothing on an aborted signal", async () => {
  const calls: string[] = [];
  await alwaysLeaderElector("node-a").run(
    AbortSignal.abort(),
    () => calls.push("started"),
    () => calls.push("stopped"),
  );
  assert.deepEqual(calls, []);
});
