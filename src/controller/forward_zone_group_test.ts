import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  finishWithin,
  forwardZone,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

Deno.test.sanitizer({ ops: true, resources: true });

// kudurru serve passes the configured group names; this checks they reach
// the status of a forward zone, which is where an operator looks first.
Deno.test("startZoneController marks a forward zone naming a missing upstream group not Ready", async () => {
  const store = createMemoryStore();
  await store.apply(forwardZone("lab", "lab.example.", "corpp"), {
    manager: "api",
  });
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    debounceMs: 5,
    upstreamGroups: ["corp", "default"],
  });
  try {
    const lab = await waitFor("the forward zone's status", async () => {
      const z = await store.get({
        kind: "DNSZone",
        namespace: "",
        name: "lab",
      }) as DNSZone;
      return z.status?.observedGeneration === 1 && z;
    });
    const ready = lab.status?.conditions?.find((c) => c.type === "Ready");
    assert.deepEqual(
      [ready?.status, ready?.reason],
      ["False", "UnknownUpstreamGroup"],
    );
    assert.match(ready?.message ?? "", /no upstream group "corpp"/);
  } finally {
    await finishWithin("The zone controller's stop", controller.stop());
    await store.close();
  }
});
