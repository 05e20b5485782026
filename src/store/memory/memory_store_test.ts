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

Deno.test("memory store audits runtime writes under the Runtime kind", async () => {
  const store = createMemoryStore({
    now: () => new Date("2030-01-01T00:00:00Z"),
  });
  try {
    await store.setRuntime("blocking.disabledUntil", "v", { actor: "alice" });
    await store.setRuntime("blocking.disabledUntil", null);
    await store.setRuntime("blocking.disabledUntil", null); // nothing to delete
    assert.deepEqual(
      store.audit.map((r) =>
        `${r.action} ${r.actor} ${r.key.kind}/${r.key.name} ${r.time}`
      ),
      [
        "set alice Runtime/blocking.disabledUntil 2030-01-01T00:00:00.000Z",
        "delete system Runtime/blocking.disabledUntil 2030-01-01T00:00:00.000Z",
      ],
    );
  } finally {
    await store.close();
  }
});
