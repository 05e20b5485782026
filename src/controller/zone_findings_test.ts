/**
 * What the zone controller writes for the findings of content_checks.ts:
 * an occluded endpoint is a problem (Ready False), a TTL mismatch a warning
 * (its condition set, Ready still True); both go once fixed.
 */
import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import type { Store } from "../store/store.ts";
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

Deno.test.sanitizer({ ops: true, resources: true });

/** The condition `type` of record set apps/`name`, once `wanted` holds for it. */
function conditionOnceIt(
  store: Store,
  name: string,
  type: string,
  wanted: (c: Record<string, unknown> | undefined) => boolean,
) {
  return waitFor(`${type} on ${name}`, async () => {
    const obj = await store.get({
      kind: "DNSRecordSet",
      namespace: "apps",
      name,
    });
    const conditions = (obj.status as { conditions?: { type: string }[] })
      ?.conditions;
    const c = conditions?.find((x) => x.type === type) as
      | Record<string, unknown>
      | undefined;
    return wanted(c) && { found: c };
  }).then((r) => r.found);
}

async function withController(
  objects: KObject[],
  body: (store: Store) => Promise<void>,
): Promise<void> {
  const store = createMemoryStore();
  await store.apply(primaryZone("example-org", "example.org."), API);
  for (const o of objects) await store.apply(o, API);
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: fakeClock(1_800_000_000).now,
    debounceMs: 5,
  });
  try {
    await body(store);
  } finally {
    await finishWithin("The zone controller's stop", controller.stop());
    await store.close();
  }
}

Deno.test("zone controller: a TTL mismatch is a warning, the record set stays Ready", async () => {
  const mixed = recordSet("apps", "web", "example-org", [
    { ...a("www.example.org", "192.0.2.1"), recordTTL: 600 },
    { ...a("www.example.org", "192.0.2.2"), recordTTL: 300 },
  ]);
  await withController([mixed], async (store) => {
    const warning = await conditionOnceIt(
      store,
      "web",
      "TTLMismatch",
      (c) => c?.status === "True",
    );
    assert.match(String(warning?.message), /^endpoints\[0\]: /);
    const ready = await conditionOnceIt(store, "web", "Ready", (c) => !!c);
    assert.deepEqual([ready?.status, ready?.reason], ["True", "Serving"]);
    await store.apply(
      recordSet("apps", "web", "example-org", [
        { ...a("www.example.org", "192.0.2.1"), recordTTL: 300 },
        { ...a("www.example.org", "192.0.2.2"), recordTTL: 300 },
      ]),
      API,
    );
    await conditionOnceIt(store, "web", "TTLMismatch", (c) => c === undefined);
  });
});

Deno.test("zone controller: data below a DNAME is Occluded, not Ready, until moved", async () => {
  const dname = recordSet("apps", "alias", "example-org", [{
    dnsName: "old.example.org",
    recordType: "DNAME",
    targets: ["new.example.net."],
  }]);
  const below = recordSet("apps", "web", "example-org", [
    a("www.old.example.org", "192.0.2.1"),
  ]);
  await withController([dname, below], async (store) => {
    const occluded = await conditionOnceIt(
      store,
      "web",
      "Occluded",
      (c) => c?.status === "True",
    );
    assert.match(String(occluded?.message), /DNAME/);
    const ready = await conditionOnceIt(store, "web", "Ready", (c) => !!c);
    assert.deepEqual([ready?.status, ready?.reason], ["False", "Occluded"]);
    await store.apply(
      recordSet("apps", "web", "example-org", [
        a("www.example.org", "192.0.2.1"),
      ]),
      API,
    );
    await conditionOnceIt(store, "web", "Occluded", (c) => c === undefined);
    await conditionOnceIt(store, "web", "Ready", (c) => c?.status === "True");
  });
});
