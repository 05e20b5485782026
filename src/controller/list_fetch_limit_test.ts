/** The download semaphore and the abortable pause. */
import assert from "node:assert/strict";
import { Limiter } from "./list_fetch_limit.ts";
import { pause } from "../async/pause.ts";

Deno.test("the limiter never hands out more than its size, in arrival order", async () => {
  const limiter = new Limiter(2);
  const signal = new AbortController().signal;
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(Array.from({ length: 7 }, async (_, i) => {
    const release = await limiter.acquire(signal);
    order.push(i);
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 5));
    active--;
    release();
    release(); // a second release must not free a second slot
  }));
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6]);
});

Deno.test("a waiter whose signal aborts leaves the queue without a slot", async () => {
  const limiter = new Limiter(1);
  const release = await limiter.acquire(new AbortController().signal);
  const stop = new AbortController();
  const waiting = limiter.acquire(stop.signal);
  stop.abort(new Error("stopping"));
  await assert.rejects(waiting, /stopping/);
  release();
  // The slot went back to the pool, not to the aborted waiter.
  const again = await limiter.acquire(new AbortController().signal);
  again();
  assert.throws(() => limiter.acquire(stop.signal));
});

Deno.test("pause ends early when its signal aborts", async () => {
  const stop = new AbortController();
  const started = Date.now();
  setTimeout(() => stop.abort(), 10);
  await pause(10_000, stop.signal);
  assert.ok(Date.now() - started < 2000);
});
