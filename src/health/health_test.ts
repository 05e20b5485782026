import assert from "node:assert/strict";
import { createHealth } from "./health.ts";

Deno.test("readiness needs startup over, no lameduck and every check ready", () => {
  const health = createHealth();
  let synced = false;
  health.register(
    "store",
    () =>
      synced ? { ready: true } : { ready: false, reason: "store not synced" },
  );
  health.register("listeners", () => ({ ready: true }));

  const starting = health.ready();
  assert.equal(starting.ready, false);
  assert.deepEqual(starting.checks, [
    { name: "startup", ready: false, reason: "still starting" },
    { name: "store", ready: false, reason: "store not synced" },
    { name: "listeners", ready: true },
  ]);

  health.starting("downloading block lists");
  assert.deepEqual(health.ready().checks[0], {
    name: "startup",
    ready: false,
    reason: "still starting: downloading block lists",
  });
  assert.equal(
    health.startupReason,
    "still starting: downloading block lists",
  );

  health.markStarted();
  assert.equal(health.started, true);
  assert.equal(health.startupReason, "");
  assert.equal(health.ready().ready, false); // the store still is not
  synced = true;
  assert.deepEqual(health.ready(), {
    ready: true,
    checks: [
      { name: "startup", ready: true },
      { name: "store", ready: true },
      { name: "listeners", ready: true },
    ],
  });

  health.setLameduck();
  const leaving = health.ready();
  assert.equal(leaving.ready, false);
  assert.equal(health.lameduck, true);
  assert.match(
    leaving.checks.find((c) => c.name === "lameduck")?.reason ?? "",
    /shutting down/,
  );
});

Deno.test("a check that throws or answers nonsense is not ready, with a reason", () => {
  const health = createHealth();
  health.markStarted();
  health.register("lists", () => {
    throw new Error("compiler crashed");
  });
  health.register("odd", () => undefined as never);
  assert.deepEqual(health.ready().checks.slice(1), [
    { name: "lists", ready: false, reason: "check failed: compiler crashed" },
    { name: "odd", ready: false, reason: "not ready" },
  ]);
});

Deno.test("checks have unique names, and unregistering removes one", () => {
  const health = createHealth();
  health.markStarted();
  const remove = health.register("snapshot", () => ({
    ready: false,
    reason: "no snapshot yet",
  }));
  assert.throws(
    () => health.register("snapshot", () => ({ ready: true })),
    /registered already/,
  );
  assert.throws(
    () => health.register("lameduck", () => ({ ready: true })),
    /reserved/,
  );
  assert.equal(health.ready().ready, false);
  remove();
  assert.equal(health.ready().ready, true);
  health.register("snapshot", () => ({ ready: true })); // the name is free again
});
