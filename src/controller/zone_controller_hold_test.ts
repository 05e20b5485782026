import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import {
  createMemoryStore,
  type MemoryStore,
} from "../store/memory/memory_store.ts";
import { RebuildHold } from "../snapshot/rebuild_hold.ts";
import {
  a,
  fakeClock,
  finishWithin,
  primaryZone,
  recordSet,
  sleep,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

const API = { manager: "api" };
const NOW = 1_800_000_000;

Deno.test.sanitizer({ ops: true, resources: true });

function statusWrites(store: MemoryStore): number {
  return store.audit.filter((row) => row.action === "status").length;
}

async function serial(store: MemoryStore): Promise<number | undefined> {
  const zone = await store.get({
    kind: "DNSZone",
    namespace: "",
    name: "example-org",
  }) as DNSZone;
  return zone.status?.serial;
}

/** A zone with its first serial stamped, and a controller under `hold`. */
async function controlledUnder(hold: RebuildHold) {
  const store = createMemoryStore();
  await store.apply(primaryZone("example-org", "example.org."), API);
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: fakeClock(NOW).now,
    debounceMs: 5,
    hold,
  });
  await waitFor("the first serial", async () => (await serial(store)) === NOW);
  return {
    store,
    async [Symbol.asyncDispose]() {
      await finishWithin("The zone controller's stop", controller.stop());
      await store.close();
    },
  };
}

/** Writes record sets w0…w(n-1) one by one, several debounce windows apart. */
async function writeOneByOne(store: MemoryStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await store.apply(
      recordSet("apps", `w${i}`, "example-org", [
        a(`w${i}.example.org`, "192.0.2.1"),
      ]),
      API,
    );
    await sleep(20);
  }
}

Deno.test("startZoneController writes nothing while held, then each status once and one serial", async () => {
  const hold = new RebuildHold({ maxWaitMs: 10_000 });
  await using c = await controlledUnder(hold);
  const before = statusWrites(c.store);
  const release = hold.take();
  await writeOneByOne(c.store, 5);
  assert.equal(statusWrites(c.store), before, "no status written while held");
  release();
  // The zone's (one new serial) and each record set's.
  await waitFor("six status writes", () => statusWrites(c.store) >= before + 6);
  await sleep(100);
  assert.equal(statusWrites(c.store), before + 6);
  assert.equal(await serial(c.store), NOW + 1);
});

Deno.test("startZoneController writes statuses after the hold's maxWaitMs when it is never released", async () => {
  const hold = new RebuildHold({ maxWaitMs: 300 });
  await using c = await controlledUnder(hold);
  const before = statusWrites(c.store);
  const started = Date.now();
  hold.take();
  await writeOneByOne(c.store, 2);
  assert.ok(Date.now() - started < 300, "the test ran too slowly to tell");
  assert.equal(statusWrites(c.store), before, "nothing before maxWaitMs");
  await waitFor(
    "statuses while still held",
    async () =>
      (await serial(c.store)) === NOW + 1 &&
      statusWrites(c.store) === before + 3,
  );
  assert.equal(hold.held, true);
});
