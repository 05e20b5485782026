/**
 * A zone name's serial never goes back when another DNSZone object starts
 * serving it, or when the zone is deleted and created again: secondaries
 * compare serials, and a lower one would keep them on old content.
 */
import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import type { Store } from "../store/store.ts";
import {
  a,
  fakeClock,
  finishWithin,
  forwardZone,
  primaryZone,
  recordSet,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { serialGreater } from "../dns/serial_number.ts";
import { startZoneController } from "./zone_controller.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const API = { manager: "api" };
const NOW = 1_800_000_000;

async function statusOf(store: Store, name: string) {
  const zone = await store.get({ kind: "DNSZone", namespace: "", name });
  return (zone as DNSZone).status;
}

/** Runs `body` with a zone controller on a memory store and a fake clock. */
async function withController(
  body: (store: Store, clock: ReturnType<typeof fakeClock>) => Promise<void>,
): Promise<void> {
  const clock = fakeClock(NOW);
  const store = createMemoryStore({ now: clock.now });
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: clock.now,
    debounceMs: 5,
  });
  try {
    await body(store, clock);
  } finally {
    await finishWithin("the controller's stop", controller.stop());
    await store.close();
  }
}

function ready(status: Awaited<ReturnType<typeof statusOf>>) {
  return status?.conditions?.find((c) => c.type === "Ready");
}

Deno.test("a zone name's serial moves on when another DNSZone object takes it over and hands it back", async () => {
  await withController(async (store, clock) => {
    // "older" exists first (as a forward zone), so it is the older object.
    await store.apply(forwardZone("older", "example.org.", "default"), API);
    clock.advance(10);
    await store.apply(primaryZone("newer", "example.org."), API);
    await store.apply(
      recordSet("apps", "www", "newer", [a("www.example.org.", "192.0.2.1")]),
      API,
    );
    await waitFor(
      "newer serves",
      async () => ready(await statusOf(store, "newer"))?.reason === "Serving",
    );
    const first = (await statusOf(store, "newer"))!.serial!;

    clock.advance(100);
    await store.apply(primaryZone("older", "example.org."), API);
    await waitFor(
      "older takes over",
      async () => ready(await statusOf(store, "older"))?.reason === "Serving",
    );
    const takeover = (await statusOf(store, "older"))!.serial!;
    assert.ok(serialGreater(takeover, first), `${takeover} > ${first}`);

    clock.advance(100);
    await store.delete({ kind: "DNSZone", namespace: "", name: "older" }, {});
    // Before: "newer" served its own old serial again, with other content.
    await waitFor(
      "newer serves again, with a serial past the takeover's",
      async () => {
        const status = await statusOf(store, "newer");
        return ready(status)?.reason === "Serving" &&
          serialGreater(status!.serial!, takeover);
      },
    );
  });
});

Deno.test("a zone deleted and created again keeps counting from a serial ahead of the clock", async () => {
  await withController(async (store, clock) => {
    await store.apply(primaryZone("z", "example.org."), API);
    await waitFor(
      "the first serial",
      async () => (await statusOf(store, "z"))?.serial === NOW,
    );
    let last = 0;
    for (let i = 1; i <= 4; i++) {
      await store.apply(
        recordSet("apps", "www", "z", [a("www.example.org.", `192.0.2.${i}`)]),
        API,
      );
      await waitFor(`change ${i} stamped`, async () => {
        const serial = (await statusOf(store, "z"))?.serial ?? 0;
        return serial === NOW + i && (last = serial) > 0;
      });
    }
    await store.delete({ kind: "DNSZone", namespace: "", name: "z" }, {});
    clock.advance(1);
    await store.apply(primaryZone("z", "example.org."), API);
    // Before: NOW + 1, three below what secondaries last transferred.
    await waitFor("the new zone's serial", async () => {
      const serial = (await statusOf(store, "z"))?.serial;
      return serial !== undefined && serialGreater(serial, last);
    });
  });
});
