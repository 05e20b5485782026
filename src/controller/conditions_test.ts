import assert from "node:assert/strict";
import { removeConditions, setCondition } from "./conditions.ts";

const T0 = new Date("2030-01-01T00:00:00Z");
const T1 = new Date("2030-01-01T00:01:00Z");
const ready = {
  type: "Ready",
  status: "True" as const,
  reason: "Serving",
  lastTransitionTime: T0.toISOString(),
};

Deno.test("setCondition keeps lastTransitionTime while the status holds", () => {
  const [c] = setCondition([ready], {
    type: "Ready",
    status: "True",
    reason: "Serving",
    message: "new",
  }, T1);
  assert.deepEqual(c, { ...ready, message: "new" });
});

Deno.test("setCondition moves lastTransitionTime when the status flips", () => {
  const [c] = setCondition([ready], {
    type: "Ready",
    status: "False",
    reason: "ZoneNotFound",
  }, T1);
  assert.equal(c?.lastTransitionTime, T1.toISOString());
});

Deno.test("setCondition appends a new type and keeps the others in place", () => {
  const other = { type: "Degraded", status: "False" as const, reason: "Fine" };
  const list = setCondition([other, ready], {
    type: "Duplicated",
    status: "True",
    reason: "Duplicated",
  }, T1);
  assert.deepEqual(list.map((c) => c.type), [
    "Degraded",
    "Ready",
    "Duplicated",
  ]);
  assert.equal(list[2]?.lastTransitionTime, T1.toISOString());
});

Deno.test("removeConditions drops only the named types", () => {
  const dup = {
    type: "Duplicated",
    status: "True" as const,
    reason: "Duplicated",
  };
  assert.deepEqual(removeConditions([ready, dup], new Set(["Duplicated"])), [
    ready,
  ]);
});
