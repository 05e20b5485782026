/**
 * Conformance: the Apply contract (docs/design.md#the-store), which every
 * driver must keep
 * identically (created/updated/unchanged, generation, ownership, concurrency,
 * validation).
 */
import assert from "node:assert/strict";
import {
  ConflictError,
  InvalidObjectError,
  ManagedByError,
  NotFoundError,
} from "./store.ts";
import {
  clientGroup,
  EventReader,
  type OpenStore,
  withMeta,
  withStore,
  zone,
} from "./conformance_fixtures.ts";

const zoneKey = (name: string) => ({ kind: "DNSZone", namespace: "", name });

export function registerApplyTests(name: string, open: OpenStore): void {
  const test = (what: string, fn: Parameters<typeof withStore>[1]) =>
    Deno.test(`${name} apply ${what}`, () => withStore(open, fn));

  test("creates with generation 1, the manager, a uid and a creationTimestamp", async (store) => {
    const created = await store.apply(zone("a"), { manager: "api" });
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.metadata.managedBy, "api");
    assert.ok(created.metadata.uid);
    assert.ok(created.metadata.creationTimestamp);
    assert.match(created.metadata.resourceVersion ?? "", /^\d+$/);
    assert.deepEqual(await store.get(zoneKey("a")), created);
  });

  test("of an identical object is a no-op with the same resourceVersion and no event", async (store) => {
    const first = await store.apply(zone("a"), { manager: "api" });
    const reader = new EventReader(
      store.watch("DNSZone", {
        resourceVersion: first.metadata.resourceVersion!,
      }),
    );
    try {
      const again = await store.apply(zone("a"), { manager: "api" });
      assert.equal(
        again.metadata.resourceVersion,
        first.metadata.resourceVersion,
      );
      assert.equal(again.metadata.generation, 1);
      assert.ok(await reader.quietFor(100));
    } finally {
      reader.close();
    }
  });

  test("bumps generation and resourceVersion when the spec changes", async (store) => {
    const first = await store.apply(zone("a"), { manager: "api" });
    const changed = zone("a");
    (changed.spec as Record<string, unknown>).defaultTTL = 60;
    const second = await store.apply(changed, { manager: "api" });
    assert.equal(second.metadata.generation, 2);
    assert.ok(
      Number(second.metadata.resourceVersion) >
        Number(first.metadata.resourceVersion),
    );
  });

  test("of a label change bumps resourceVersion but not generation", async (store) => {
    const first = await store.apply(zone("a"), { manager: "api" });
    const second = await store.apply(
      withMeta(zone("a"), { labels: { tier: "gold" } }),
      { manager: "api" },
    );
    assert.equal(second.metadata.generation, 1);
    assert.deepEqual(second.metadata.labels, { tier: "gold" });
    assert.ok(
      Number(second.metadata.resourceVersion) >
        Number(first.metadata.resourceVersion),
    );
  });

  test("by another manager fails with ManagedByError naming the owner", async (store) => {
    await store.apply(zone("a"), { manager: "file:zones.yaml" });
    const err = await store.apply(zone("a"), { manager: "api" }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err instanceof ManagedByError, String(err));
    assert.equal(err.owner, "file:zones.yaml");
  });

  test("with force takes the object over", async (store) => {
    await store.apply(zone("a"), { manager: "file:zones.yaml" });
    const taken = await store.apply(zone("a"), { manager: "api", force: true });
    assert.equal(taken.metadata.managedBy, "api");
    assert.equal((await store.get(zoneKey("a"))).metadata.managedBy, "api");
  });

  test("with a stale expectedResourceVersion fails with ConflictError", async (store) => {
    const first = await store.apply(zone("a"), { manager: "api" });
    await store.apply(withMeta(zone("a"), { labels: { x: "1" } }), {
      manager: "api",
    });
    const err = await store.apply(withMeta(zone("a"), { labels: { x: "2" } }), {
      manager: "api",
      expectedResourceVersion: first.metadata.resourceVersion!,
    }).then(() => undefined, (e) => e);
    assert.ok(err instanceof ConflictError, String(err));
  });

  test("with the current expectedResourceVersion succeeds", async (store) => {
    const first = await store.apply(zone("a"), { manager: "api" });
    const second = await store.apply(
      withMeta(zone("a"), { labels: { x: "1" } }),
      {
        manager: "api",
        expectedResourceVersion: first.metadata.resourceVersion!,
      },
    );
    assert.deepEqual(second.metadata.labels, { x: "1" });
  });

  test("keeps a caller-stamped uid and creationTimestamp", async (store) => {
    const stamped = withMeta(zone("a"), {
      uid: "uid-1",
      creationTimestamp: "2024-01-02T03:04:05Z",
    });
    const created = await store.apply(stamped, { manager: "api" });
    assert.equal(created.metadata.uid, "uid-1");
    assert.equal(created.metadata.creationTimestamp, "2024-01-02T03:04:05Z");
    const updated = await store.apply(
      withMeta(zone("a"), { uid: "other", labels: { x: "1" } }),
      { manager: "api" },
    );
    assert.equal(updated.metadata.uid, "uid-1");
  });

  test("keeps the stored status and ignores incoming status", async (store) => {
    const created = await store.apply(zone("a"), { manager: "api" });
    await store.updateStatus({ ...created, status: { serial: 7 } });
    const applied = await store.apply(
      zone("a", undefined, { status: { serial: 99 } }),
      { manager: "api" },
    );
    assert.deepEqual(applied.status, { serial: 7 });
    const changed = await store.apply(
      withMeta(zone("a"), { labels: { x: "1" } }),
      { manager: "api" },
    );
    assert.deepEqual(changed.status, { serial: 7 });
  });

  test("rejects an invalid object naming the field and stores nothing", async (store) => {
    const bad = clientGroup("default", "lan", undefined, "not-a-cidr");
    const err = await store.apply(bad, { manager: "api" }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err instanceof InvalidObjectError, String(err));
    assert.ok(
      err.issues.some((i) => i.path.startsWith("spec.clients[0]")),
      JSON.stringify(err.issues),
    );
    await assert.rejects(
      store.get({ kind: "ClientGroup", namespace: "default", name: "lan" }),
      NotFoundError,
    );
    assert.equal((await store.list("ClientGroup")).items.length, 0);
  });

  test("rejects a changed zoneName and keeps the stored one", async (store) => {
    await store.apply(zone("a", "a.example."), { manager: "api" });
    const err = await store.apply(zone("a", "b.example."), { manager: "api" })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof InvalidObjectError, String(err));
    assert.ok(
      err.issues.some((i) => i.path === "spec.zoneName"),
      JSON.stringify(err.issues),
    );
    const stored = await store.get(zoneKey("a"));
    assert.equal((stored.spec as { zoneName: string }).zoneName, "a.example.");
  });

  test("hands out increasing resourceVersions across kinds", async (store) => {
    const a = await store.apply(zone("a"), { manager: "api" });
    const b = await store.apply(clientGroup("default", "lan"), {
      manager: "api",
    });
    const c = await store.apply(zone("c"), { manager: "api" });
    const rvs = [a, b, c].map((o) => Number(o.metadata.resourceVersion));
    assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, String(rvs));
  });
}
