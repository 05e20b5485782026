import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import { startSnapshotBuilder } from "../snapshot/builder.ts";
import {
  a,
  fakeClock,
  finishWithin,
  primaryZone,
  recordSet,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

const NOW = 1_800_000_000;

// Leaked loops fail the test that leaked them; left running, they would keep
// the event loop alive and turn a later never-settling await into a silent
// hang (Deno 2.9 leaves these sanitizers off by default).
Deno.test.sanitizer({ ops: true, resources: true });

Deno.test("startZoneController and startSnapshotBuilder on the sqlite driver serve a stamped serial", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-controller-" });
  const store = await openSqliteStore(join(dir, "state.db"), {
    node: "node-a",
  });
  try {
    await store.apply(primaryZone("example-org", "example.org."), {
      manager: "api",
    });
    await store.apply(
      recordSet("apps", "web", "example-org", [
        a("www.example.org", "192.0.2.1"),
      ]),
      { manager: "api" },
    );
    const clock = fakeClock(NOW);
    const snapshots: Snapshot[] = [];
    const builder = startSnapshotBuilder({
      store,
      nodeName: "node-a",
      version: "test",
      logger: memoryLogger(),
      debounceMs: 5,
      now: clock.now,
      onSnapshot: (s) => snapshots.push(s),
    });
    const controller = startZoneController({
      store,
      logger: memoryLogger(),
      now: clock.now,
      debounceMs: 5,
    });
    try {
      await finishWithin("The first snapshot", builder.synced);
      const stamped = await waitFor(
        "a snapshot with the stamped serial",
        () => snapshots.find((s) => s.zones[0]?.serial === NOW),
      );
      assert.equal(
        stamped.zones[0]?.rrsets.some((r) => r.name === "www.example.org."),
        true,
      );
      const zone = await store.get({
        kind: "DNSZone",
        namespace: "",
        name: "example-org",
      });
      assert.equal((zone.status as { serial?: number }).serial, NOW);
    } finally {
      await finishWithin("The zone controller's stop", controller.stop());
      await finishWithin("The snapshot builder's stop", builder.stop());
    }
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
