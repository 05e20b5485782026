import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { createHealth } from "./health.ts";
import { enterLameduck } from "./lameduck.ts";

Deno.test("lameduck fails readiness at once and waits out the grace period", async () => {
  const health = createHealth();
  health.markStarted();
  const logger = memoryLogger();
  const started = performance.now();
  const waiting = enterLameduck({ health, logger, graceMs: 120 });
  // Synchronously in lameduck: probes see it before the wait begins.
  assert.equal(health.lameduck, true);
  assert.equal(health.ready().ready, false);
  await waiting;
  const waited = performance.now() - started;
  assert.ok(waited >= 110 && waited < 2_000, `waited ${waited} ms`);
  assert.match(logger.lines.join("\n"), /Lameduck/);
});

Deno.test("a second signal cuts the lameduck grace period short", async () => {
  const health = createHealth();
  const stopNow = new AbortController();
  const started = performance.now();
  const waiting = enterLameduck({
    health,
    logger: memoryLogger(),
    graceMs: 10_000,
    signal: stopNow.signal,
  });
  setTimeout(() => stopNow.abort(), 20);
  await waiting;
  assert.ok(performance.now() - started < 2_000);
});
