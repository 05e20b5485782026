import assert from "node:assert/strict";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { ManagedByError, NotFoundError, type Store } from "../store/store.ts";
import { bootstrapObjects, seedFirstBoot } from "./bootstrap.ts";
import { group, key, storeFor } from "./testdata/fixtures.ts";

const starter = (): Promise<KObject> =>
  Promise.resolve({
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name: "starter" },
    spec: { sources: [{ url: "https://lists.example/hosts.txt" }] },
  });

Deno.test("seedFirstBoot creates the defaults in order under manager bootstrap", async () => {
  await using store = storeFor();
  const result = await seedFirstBoot(store);
  assert.deepEqual(result, {
    firstBoot: true,
    created: [
      "ClientGroup/default/default",
      "Policy/default/default",
      "DNSZone/root",
    ],
    present: [],
  });
  const cg = await store.get(key("ClientGroup", "default", "default"));
  assert.deepEqual(cg.spec, {
    clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }],
  });
  assert.equal(cg.metadata.managedBy, "bootstrap");
  const policy = await store.get(
    key("Policy", "default", "default"),
  ) as KObject<
    Record<string, unknown>
  >;
  assert.deepEqual(policy.spec?.clientGroupRefs, ["default"]);
  assert.equal(policy.spec?.blockListRefs, undefined);
  const zone = await store.get(key("DNSZone", "root")) as KObject<
    Record<string, unknown>
  >;
  assert.equal(zone.spec?.zoneName, ".");
  assert.equal(zone.spec?.type, "forward");
  assert.deepEqual(
    (zone.spec?.forward as Record<string, unknown>).upstreamGroup,
    "default",
  );
});

Deno.test("seedFirstBoot creates a starter BlockList first and references it", async () => {
  await using store = storeFor();
  const result = await seedFirstBoot(store, { starterBlockList: starter });
  assert.equal(result.created[0], "BlockList/default/starter");
  const policy = await store.get(
    key("Policy", "default", "default"),
  ) as KObject<
    Record<string, unknown>
  >;
  assert.deepEqual(policy.spec?.blockListRefs, ["starter"]);
});

Deno.test("seedFirstBoot honours the namespace and upstream group options", async () => {
  await using store = storeFor();
  await seedFirstBoot(store, { namespace: "dns", upstreamGroup: "isp" });
  await store.get(key("ClientGroup", "default", "dns"));
  await store.get(key("Policy", "default", "dns"));
  const zone = await store.get(key("DNSZone", "root")) as KObject<{
    forward: { upstreamGroup: string };
  }>;
  assert.equal(zone.spec?.forward.upstreamGroup, "isp");
});

Deno.test("seedFirstBoot does nothing when any seeded kind has an object", async (t) => {
  for (const kind of ["ClientGroup", "Policy", "DNSZone"]) {
    await t.step(kind, async () => {
      await using store = storeFor();
      const existing = kind === "ClientGroup"
        ? group("lan")
        : kind === "Policy"
        ? {
          apiVersion: API_VERSION,
          kind,
          metadata: { name: "p", namespace: "x" },
          spec: {},
        }
        : {
          apiVersion: API_VERSION,
          kind,
          metadata: { name: "z" },
          spec: {
            zoneName: "z.",
            type: "forward",
            forward: { upstreamGroup: "default" },
          },
        };
      await store.apply(existing, { manager: "api" });
      const result = await seedFirstBoot(store);
      assert.deepEqual(result, { firstBoot: false, created: [], present: [] });
      const total = (await store.list("ClientGroup")).items.length +
        (await store.list("Policy")).items.length +
        (await store.list("DNSZone")).items.length;
      assert.equal(total, 1);
    });
  }
});

Deno.test("seedFirstBoot counts BlockLists only when a starter list is configured", async (t) => {
  const list = {
    ...(await starter()),
    metadata: { name: "mine", namespace: "default" },
  };
  await t.step(
    "without a starter list, a BlockList does not matter",
    async () => {
      await using store = storeFor();
      await store.apply(list, { manager: "api" });
      assert.equal((await seedFirstBoot(store)).firstBoot, true);
    },
  );
  await t.step(
    "with a starter list, a BlockList means not first boot",
    async () => {
      await using store = storeFor();
      await store.apply(list, { manager: "api" });
      assert.equal(
        (await seedFirstBoot(store, { starterBlockList: starter })).firstBoot,
        false,
      );
    },
  );
});

Deno.test("seedFirstBoot does not recreate a default the operator deleted", async () => {
  await using store = storeFor();
  await seedFirstBoot(store);
  await store.delete(key("Policy", "default", "default"), { force: true });
  const result = await seedFirstBoot(store);
  assert.equal(result.firstBoot, false);
  await assert.rejects(
    store.get(key("Policy", "default", "default")),
    NotFoundError,
  );
});

Deno.test("seedFirstBoot validates the whole set before writing anything", async () => {
  await using store = storeFor();
  const bad = async () => ({
    ...(await starter()),
    spec: { mode: "sometimes" },
  });
  await assert.rejects(
    seedFirstBoot(store, { starterBlockList: bad }),
    /BlockList\/default\/starter is invalid/,
  );
  assert.equal((await store.list("ClientGroup")).items.length, 0);
  assert.equal((await store.list("BlockList")).items.length, 0);
});

Deno.test("seedFirstBoot counts a ManagedByError race as present", async () => {
  await using inner = storeFor();
  const store: Store = Object.assign(Object.create(inner), {
    apply: (obj: KObject, opts: Parameters<Store["apply"]>[1]) =>
      obj.kind === "Policy"
        ? Promise.reject(
          new ManagedByError(
            key("Policy", "default", "default"),
            "api",
            "bootstrap",
          ),
        )
        : inner.apply(obj, opts),
  });
  const result = await seedFirstBoot(store);
  assert.deepEqual(result.present, ["Policy/default/default"]);
  assert.deepEqual(result.created, [
    "ClientGroup/default/default",
    "DNSZone/root",
  ]);
});

Deno.test("bootstrapObjects lists the seed set in creation order", async () => {
  const seeds = await bootstrapObjects({ starterBlockList: starter });
  assert.deepEqual(seeds.map((s) => `${s.kind}/${s.metadata.name}`), [
    "BlockList/starter",
    "ClientGroup/default",
    "Policy/default",
    "DNSZone/root",
  ]);
});
