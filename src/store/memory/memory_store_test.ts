import assert from "node:assert/strict";
import { API_VERSION } from "../../api/v1alpha1/meta.ts";
import { runStoreConformance } from "../conformance.ts";
import { createMemoryStore } from "./memory_store.ts";

runStoreConformance(
  "memory store",
  (hints) => Promise.resolve(createMemoryStore(hints)),
);

Deno.test("memory store writes one audit row per mutation", async () => {
  const store = createMemoryStore();
  try {
    const zone = {
      apiVersion: API_VERSION,
      kind: "DNSZone",
      metadata: { name: "a" },
      spec: { zoneName: "a.example.", type: "primary" },
    };
    await store.apply(zone, { manager: "api", actor: "alice" });
    await store.apply(zone, { manager: "api", actor: "alice" });
    await store.delete({ kind: "DNSZone", namespace: "", name: "a" }, {
      actor: "bob",
    });
    assert.deepEqual(
      store.audit.map((r) => `${r.action} ${r.actor} ${r.resourceVersion}`),
      [
        "create alice 1",
        "delete bob 2",
      ],
    );
  } finally {
    await store.close();
  }
});
