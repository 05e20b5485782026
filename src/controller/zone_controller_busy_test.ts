import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  a,
  fakeClock,
  finishWithin,
  primaryZone,
  recordSet,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

const API = { manager: "api" };
const RECORD_SETS = 2000;

Deno.test.sanitizer({ ops: true, resources: true });

Deno.test("startZoneController lets timers run while it writes many statuses (health probes keep answering)", async () => {
  const store = createMemoryStore();
  await using _closing = { [Symbol.asyncDispose]: () => store.close() };
  await store.apply(primaryZone("example-org", "example.org."), API);
  for (let i = 0; i < RECORD_SETS; i++) {
    await store.apply(
      recordSet("apps", `w${i}`, "example-org", [
        a(`w${i}.example.org`, "192.0.2.1"),
      ]),
      API,
    );
  }
  const statusWrites = () =>
    store.audit.filter((row) => row.action === "status").length;
  // What a timer sees of the pass: with no turn between writes, only 0
  // (before) and everything (after).
  const seen = new Set<number>();
  const ticker = setInterval(() => seen.add(statusWrites()), 0);
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: fakeClock(1_800_000_000).now,
    debounceMs: 5,
  });
  try {
    await waitFor(
      "every status",
      () => statusWrites() === RECORD_SETS + 1,
      20_000,
    );
    const midPass = [...seen].filter((n) => n > 0 && n < RECORD_SETS + 1);
    assert.ok(midPass.length > 0, `timers saw only ${[...seen]}`);
  } finally {
    clearInterval(ticker);
    await finishWithin("The zone controller's stop", controller.stop());
  }
});
