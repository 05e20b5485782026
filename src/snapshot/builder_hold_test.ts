import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import type { Store } from "../store/store.ts";
import { startSnapshotBuilder } from "./builder.ts";
import { RebuildHold } from "./rebuild_hold.ts";
import {
  a,
  finishWithin,
  primaryZone,
  recordSet,
  sleep,
  waitFor,
} from "./testdata/zone_objects.ts";

const API = { manager: "api" };

Deno.test.sanitizer({ ops: true, resources: true });

/** A builder on `store` under `hold` that records every snapshot it publishes. */
async function recordUnder(store: Store, hold: RebuildHold) {
  const snapshots: Snapshot[] = [];
  const builder = startSnapshotBuilder({
    store,
    nodeName: "node-a",
    version: "0.0.0-test",
    logger: memoryLogger(),
    debounceMs: 10,
    hold,
    onSnapshot: (s) => snapshots.push(s),
  });
  await finishWithin("The first snapshot", builder.synced);
  return {
    snapshots,
    async [Symbol.asyncDispose]() {
      await finishWithin("The snapshot builder's stop", builder.stop());
    },
  };
}

function names(s: Snapshot | undefined): string[] {
  const zone = s?.zones.find((z) => z.name === "example.org.");
  return [...new Set((zone?.rrsets ?? []).map((r) => r.name))].sort();
}

/** Writes record sets w0…w(n-1) one by one, a few debounce windows apart. */
async function writeOneByOne(store: Store, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await store.apply(
      recordSet("apps", `w${i}`, "example-org", [
        a(`w${i}.example.org`, "192.0.2.1"),
      ]),
      API,
    );
    await sleep(25);
  }
}

Deno.test("startSnapshotBuilder publishes what was written under a hold once, complete, after the release", async () => {
  const store = createMemoryStore();
  await store.apply(primaryZone("example-org", "example.org."), API);
  const hold = new RebuildHold({ maxWaitMs: 10_000 });
  await using b = await recordUnder(store, hold);
  const release = hold.take();
  await writeOneByOne(store, 5);
  assert.equal(b.snapshots.length, 1, "nothing published while held");
  release();
  await waitFor("a snapshot after the release", () => b.snapshots.length > 1);
  await sleep(50);
  assert.equal(b.snapshots.length, 2, "one snapshot for the five writes");
  assert.deepEqual(
    names(b.snapshots[1]),
    [
      "example.org.",
      "w0.example.org.",
      "w1.example.org.",
      "w2.example.org.",
      "w3.example.org.",
      "w4.example.org.",
    ],
  );
  await store.close();
});

Deno.test("startSnapshotBuilder rebuilds after the hold's maxWaitMs when it is never released", async () => {
  const store = createMemoryStore();
  await store.apply(primaryZone("example-org", "example.org."), API);
  const hold = new RebuildHold({ maxWaitMs: 300 });
  await using b = await recordUnder(store, hold);
  const started = Date.now();
  hold.take();
  await writeOneByOne(store, 2);
  assert.ok(Date.now() - started < 300, "the test ran too slowly to tell");
  assert.equal(b.snapshots.length, 1, "nothing published before maxWaitMs");
  await waitFor(
    "a snapshot while still held",
    () => names(b.snapshots.at(-1)).includes("w1.example.org."),
  );
  assert.equal(hold.held, true);
  await store.close();
});
