/**
 * Conformance: get, list (namespaces, label selectors, pages), delete with
 * and without finalizers, updateStatus, snapshot/restore, info and elector.
 */
import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  InvalidObjectError,
  ManagedByError,
  NotFoundError,
  SCHEMA_VERSION,
  type Store,
} from "./store.ts";
import {
  clientGroup,
  type OpenStore,
  recordSet,
  withMeta,
  withStore,
  zone,
} from "./conformance_fixtures.ts";

const zoneKey = (name: string) => ({ kind: "DNSZone", namespace: "", name });
const names = (items: KObject[]) =>
  items.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);

async function listAllPages(
  store: Store,
  kind: string,
  limit: number,
): Promise<string[]> {
  const seen: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(
      kind,
      token === undefined ? { limit } : { limit, continue: token },
    );
    assert.ok(page.items.length <= limit);
    seen.push(...names(page.items));
    token = page.continue;
  } while (token !== undefined);
  return seen;
}

export function registerObjectTests(name: string, open: OpenStore): void {
  const test = (what: string, fn: (store: Store) => Promise<void>) =>
    Deno.test(`${name} ${what}`, () => withStore(open, fn));

  test("get of a missing object fails with NotFoundError", async (store) => {
    await assert.rejects(store.get(zoneKey("nope")), NotFoundError);
  });

  test("list filters by namespace", async (store) => {
    await store.apply(recordSet("blue", "www"), { manager: "api" });
    await store.apply(recordSet("green", "www"), { manager: "api" });
    await store.apply(recordSet("blue", "mail"), { manager: "api" });
    assert.deepEqual(
      names((await store.list("DNSRecordSet", { namespace: "blue" })).items),
      ["blue/mail", "blue/www"],
    );
    assert.equal((await store.list("DNSRecordSet")).items.length, 3);
  });

  Deno.test(`${name} list filters by label selector`, async (t) => {
    await withStore(open, async (store) => {
      await store.apply(
        clientGroup("default", "a", { env: "prod", tier: "1" }),
        { manager: "api" },
      );
      await store.apply(clientGroup("default", "b", { env: "dev" }), {
        manager: "api",
      });
      await store.apply(clientGroup("default", "c"), { manager: "api" });
      const cases: [string, string[]][] = [
        ["env=prod", ["default/a"]],
        ["env!=prod", ["default/b", "default/c"]],
        ["env", ["default/a", "default/b"]],
        ["!env", ["default/c"]],
        ["env in (prod,dev)", ["default/a", "default/b"]],
        ["env notin (prod),tier", []],
        ["env=prod,tier=1", ["default/a"]],
      ];
      for (const [selector, want] of cases) {
        await t.step(selector, async () => {
          assert.deepEqual(
            names(
              (await store.list("ClientGroup", { labelSelector: selector }))
                .items,
            ),
            want,
          );
        });
      }
    });
  });

  test("list pages in stable (namespace, name) order", async (store) => {
    for (
      const [ns, n] of [["b", "x"], ["a", "z"], ["a", "y"], ["c", "w"], [
        "b",
        "v",
      ]]
    ) {
      await store.apply(recordSet(ns!, n!), { manager: "api" });
    }
    const first = await store.list("DNSRecordSet", { limit: 2 });
    assert.deepEqual(names(first.items), ["a/y", "a/z"]);
    // An object added before the current position must not shift later pages.
    await store.apply(recordSet("a", "a"), { manager: "api" });
    const rest = await store.list("DNSRecordSet", {
      limit: 10,
      continue: first.continue!,
    });
    assert.deepEqual(names(rest.items), ["b/v", "b/x", "c/w"]);
    assert.equal(rest.continue, undefined);
    assert.deepEqual(await listAllPages(store, "DNSRecordSet", 2), [
      "a/a",
      "a/y",
      "a/z",
      "b/v",
      "b/x",
      "c/w",
    ]);
  });

  test("delete removes an object without finalizers", async (store) => {
    await store.apply(zone("a"), { manager: "api" });
    await store.delete(zoneKey("a"));
    await assert.rejects(store.get(zoneKey("a")), NotFoundError);
  });

  test("delete of a missing object fails with NotFoundError", async (store) => {
    await assert.rejects(store.delete(zoneKey("nope")), NotFoundError);
  });

  test("delete by another manager fails with ManagedByError unless forced", async (store) => {
    await store.apply(zone("a"), { manager: "file:zones.yaml" });
    await assert.rejects(
      store.delete(zoneKey("a"), { manager: "api" }),
      ManagedByError,
    );
    await store.get(zoneKey("a"));
    await store.delete(zoneKey("a"), { manager: "api", force: true });
    await assert.rejects(store.get(zoneKey("a")), NotFoundError);
  });

  test("delete of an object with finalizers marks it until they are gone", async (store) => {
    await store.apply(
      withMeta(zone("a"), { finalizers: ["kudurru.io/serial"] }),
      { manager: "api" },
    );
    await store.delete(zoneKey("a"));
    const marked = await store.get(zoneKey("a"));
    assert.ok(marked.metadata.deletionTimestamp, "deletionTimestamp set");
    await store.apply(withMeta(zone("a"), { finalizers: [] }), {
      manager: "api",
    });
    await assert.rejects(store.get(zoneKey("a")), NotFoundError);
  });

  test("updateStatus writes status only and bumps resourceVersion", async (store) => {
    const created = await store.apply(
      withMeta(zone("a"), { labels: { x: "1" } }),
      { manager: "api" },
    );
    const changed = withMeta({
      ...created,
      status: { serial: 5, observedGeneration: 1 },
    }, { labels: { x: "2" } });
    const updated = await store.updateStatus(changed);
    assert.deepEqual(updated.status, { serial: 5, observedGeneration: 1 });
    assert.deepEqual(updated.metadata.labels, { x: "1" });
    assert.equal(updated.metadata.generation, 1);
    assert.ok(
      Number(updated.metadata.resourceVersion) >
        Number(created.metadata.resourceVersion),
    );
    assert.deepEqual(await store.get(zoneKey("a")), updated);
  });

  test("updateStatus of a missing object fails with NotFoundError", async (store) => {
    await assert.rejects(
      store.updateStatus(zone("nope", undefined, { status: { serial: 1 } })),
      NotFoundError,
    );
  });

  test("updateStatus rejects an invalid status", async (store) => {
    const created = await store.apply(zone("a"), { manager: "api" });
    await assert.rejects(
      store.updateStatus({ ...created, status: { serial: -1 } }),
      InvalidObjectError,
    );
    assert.equal((await store.get(zoneKey("a"))).status, undefined);
  });

  test("snapshot restores into an empty store unchanged", async (store) => {
    const z = await store.apply(withMeta(zone("a"), { uid: "u-1" }), {
      manager: "file:zones.yaml",
    });
    await store.updateStatus({ ...z, status: { serial: 9 } });
    await store.apply(recordSet("default", "www"), { manager: "api" });
    await store.apply(clientGroup("lan", "home", { site: "home" }), {
      manager: "bootstrap",
    });
    const yaml = await store.snapshot();
    await withStore(open, async (copy) => {
      await copy.restore(yaml);
      for (const kind of ["DNSZone", "DNSRecordSet", "ClientGroup"]) {
        const strip = (o: KObject) =>
          withMeta(o, { resourceVersion: "", generation: 0 });
        const want = (await store.list(kind)).items.map(strip);
        const got = (await copy.list(kind)).items.map(strip);
        assert.deepEqual(got, want, kind);
      }
    });
  });

  test("safe snapshot leaves out status and server-populated metadata", async (store) => {
    const z = await store.apply(zone("a"), { manager: "api" });
    await store.updateStatus({ ...z, status: { serial: 9 } });
    const yaml = await store.snapshot({ safe: true });
    assert.match(yaml, /kind: List/);
    assert.match(yaml, /managedBy: api/);
    for (
      const field of [
        "uid:",
        "resourceVersion:",
        "generation:",
        "creationTimestamp:",
        "status:",
      ]
    ) {
      assert.ok(!yaml.includes(field), `${field} in\n${yaml}`);
    }
  });

  test("restore with an invalid item writes nothing", async (store) => {
    const yaml = [
      "apiVersion: v1",
      "kind: List",
      "items:",
      "  - {apiVersion: kudurru.io/v1alpha1, kind: DNSZone, metadata: {name: a}, spec: {zoneName: a.example., type: primary}}",
      "  - {apiVersion: kudurru.io/v1alpha1, kind: DNSZone, metadata: {name: b}, spec: {zoneName: b.example., type: bogus}}",
    ].join("\n");
    await assert.rejects(store.restore(yaml), InvalidObjectError);
    assert.equal((await store.list("DNSZone")).items.length, 0);
  });

  test("info reports the driver, schema version and cluster", (store) => {
    const info = store.info();
    assert.ok(info.driver);
    assert.equal(info.schemaVersion, SCHEMA_VERSION);
    assert.ok(info.clusterID);
    assert.ok(info.epoch >= 1);
    assert.ok(info.leader);
    return Promise.resolve();
  });

  test("elector runs leader callbacks until aborted", async (store) => {
    const elector = store.elector("controller");
    const calls: string[] = [];
    const ac = new AbortController();
    const running = elector.run(
      ac.signal,
      () => calls.push("started"),
      () => calls.push("stopped"),
    );
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(elector.isLeader());
    assert.ok(elector.leader());
    ac.abort();
    await running;
    assert.deepEqual(calls, ["started", "stopped"]);
  });
}
