import assert from "node:assert/strict";
import fc from "fast-check";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { ExpiredError } from "../store/store.ts";
import { KindMirror } from "./kind_mirror.ts";
import {
  breakableStore,
  finishWithin,
  LOOP_TEST,
  primaryZone,
} from "./testdata/zone_objects.ts";

const API = { manager: "api" };

/** Lets `n` microtasks, or `n` timer turns, pass. */
async function pass(n: number, timers: boolean): Promise<void> {
  for (let i = 0; i < n; i++) {
    await (timers ? new Promise((r) => setTimeout(r, 0)) : Promise.resolve());
  }
}

/** Something that happens to the store while the mirror runs. */
const disturbance = fc.oneof(
  fc.record({ wait: fc.nat(20), timers: fc.boolean() }),
  fc.record({ apply: fc.nat(3) }),
  fc.constant("closeWatches" as const),
  fc.constant("failNextWatch" as const),
  fc.constant("closeStore" as const),
);

Deno.test(
  "KindMirror stop ends the watch loop at whatever moment it comes",
  LOOP_TEST,
  async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(disturbance, { maxLength: 6 }),
        fc.boolean(),
        async (disturbances, startFirst) => {
          const store = createMemoryStore();
          await store.apply(primaryZone("a", "a.example."), API);
          const watched = breakableStore(store);
          const mirror = new KindMirror({
            store: watched.store,
            kind: "DNSZone",
            logger: memoryLogger(),
            onChange: () => {},
            backoff: { initialMs: 1, maxMs: 4 },
          });
          if (startFirst) mirror.start();
          const writes: Promise<unknown>[] = [];
          for (const d of disturbances) {
            if (d === "closeWatches") watched.closeWatches();
            else if (d === "failNextWatch") {
              watched.failNextWatches(1, new ExpiredError("1"));
            } else if (d === "closeStore") await store.close();
            else if ("apply" in d) {
              const zone = primaryZone(`z${d.apply}`, `z${d.apply}.example.`);
              writes.push(store.apply(zone, API).catch(() => {}));
            } else await pass(d.wait, d.timers);
          }
          if (!startFirst) mirror.start();
          await finishWithin("KindMirror stop", mirror.stop(), 5000);
          // Nothing may watch again once stop() has returned.
          const watches = watched.watches;
          watched.closeWatches();
          await pass(3, true);
          assert.equal(watched.watches, watches);
          await Promise.all(writes);
          await store.close();
        },
      ),
      { numRuns: 150 },
    );
  },
);

Deno.test(
  "KindMirror stop before start leaves nothing to run",
  LOOP_TEST,
  async () => {
    const store = createMemoryStore();
    const watched = breakableStore(store);
    const mirror = new KindMirror({
      store: watched.store,
      kind: "DNSZone",
      logger: memoryLogger(),
      onChange: () => {},
    });
    await finishWithin("KindMirror stop", mirror.stop());
    mirror.start();
    await finishWithin("KindMirror stop", mirror.stop());
    assert.equal(watched.watches, 0);
    await store.close();
  },
);
