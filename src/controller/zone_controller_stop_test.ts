import assert from "node:assert/strict";
import fc from "fast-check";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { type Elector, ExpiredError, type Store } from "../store/store.ts";
import {
  a,
  breakableStore,
  finishWithin,
  LOOP_TEST,
  primaryZone,
  recordSet,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

const API = { manager: "api" };

/** Lets `n` microtasks, or `n` timer turns, pass. */
async function pass(n: number, timers: boolean): Promise<void> {
  for (let i = 0; i < n; i++) {
    await (timers ? new Promise((r) => setTimeout(r, 0)) : Promise.resolve());
  }
}

/** An elector whose leadership the property moves; ends its run on abort. */
function movingElector() {
  let callbacks: { onStarted: () => void; onStopped: () => void } | undefined;
  let leading = false;
  const elector: Elector = {
    run(signal, onStarted, onStopped) {
      callbacks = { onStarted, onStopped };
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          if (leading) onStopped();
          leading = false;
          resolve();
        }, { once: true })
      );
    },
    isLeader: () => leading,
    leader: () => "node-a",
  };
  return {
    elector,
    lead(yes: boolean) {
      if (leading === yes) return;
      leading = yes;
      if (yes) callbacks?.onStarted();
      else callbacks?.onStopped();
    },
  };
}

const disturbance = fc.oneof(
  fc.record({ wait: fc.nat(20), timers: fc.boolean() }),
  fc.record({ apply: fc.nat(3) }),
  fc.record({ lead: fc.boolean() }),
  fc.constant("closeWatches" as const),
  fc.constant("failNextWatch" as const),
  fc.constant("closeStore" as const),
);

Deno.test(
  "startZoneController stop finishes at whatever moment it comes",
  LOOP_TEST,
  async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(disturbance, { maxLength: 6 }),
        fc.boolean(),
        async (disturbances, alwaysLeader) => {
          const store = createMemoryStore();
          await store.apply(primaryZone("example-org", "example.org."), API);
          const watched = breakableStore(store);
          const election = movingElector();
          const led: Store = alwaysLeader
            ? watched.store
            : { ...watched.store, elector: () => election.elector };
          const controller = startZoneController({
            store: led,
            logger: memoryLogger(),
            debounceMs: 0,
            retryMs: 1,
            backoff: { initialMs: 1, maxMs: 4 },
          });
          const writes: Promise<unknown>[] = [];
          for (const d of disturbances) {
            if (d === "closeWatches") watched.closeWatches();
            else if (d === "failNextWatch") {
              watched.failNextWatches(1, new ExpiredError("1"));
            } else if (d === "closeStore") await store.close();
            else if ("lead" in d) election.lead(d.lead);
            else if ("apply" in d) {
              const rs = recordSet("apps", `r${d.apply}`, "example-org", [
                a(`r${d.apply}.example.org`, "192.0.2.1"),
              ]);
              writes.push(store.apply(rs, API).catch(() => {}));
            } else await pass(d.wait, d.timers);
          }
          await finishWithin(
            "The zone controller's stop",
            controller.stop(),
            5000,
          );
          // Nothing may watch or write once stop() has returned.
          const before = [watched.watches, store.audit.length];
          watched.closeWatches();
          election.lead(true);
          await pass(3, true);
          assert.deepEqual([watched.watches, store.audit.length], before);
          await Promise.all(writes);
          await store.close();
        },
      ),
      { numRuns: 150 },
    );
  },
);
