/**
 * Conformance: watches. Initial state then a Bookmark, live changes in order,
 * resume from a resourceVersion, expiry after compaction, and ending.
 */
import assert from "node:assert/strict";
import { ExpiredError, type Store, type Watcher } from "./store.ts";
import {
  clientGroup,
  describe,
  EventReader,
  type OpenStore,
  recordSet,
  withMeta,
  withStore,
  zone,
} from "./conformance_fixtures.ts";

const zoneKey = (name: string) => ({ kind: "DNSZone", namespace: "", name });

/** Drivers may reject a resume synchronously or on the first read; accept both. */
async function firstReadError(open: () => Watcher): Promise<unknown> {
  let watcher: Watcher;
  try {
    watcher = open();
  } catch (err) {
    return err;
  }
  const reader = new EventReader(watcher);
  try {
    await reader.next(1000);
    return undefined;
  } catch (err) {
    return err;
  } finally {
    reader.close();
  }
}

export function registerWatchTests(name: string, open: OpenStore): void {
  const test = (
    what: string,
    fn: (store: Store) => Promise<void>,
    hints?: { feedLimit?: number },
  ) => Deno.test(`${name} watch ${what}`, () => withStore(open, fn, hints));

  test("without a resourceVersion sends every object as Added, then a Bookmark", async (store) => {
    await store.apply(zone("b"), { manager: "api" });
    await store.apply(zone("a"), { manager: "api" });
    await store.apply(clientGroup("default", "lan"), { manager: "api" });
    const list = await store.list("DNSZone");
    const reader = new EventReader(store.watch("DNSZone"));
    try {
      const events = await reader.take(3);
      assert.deepEqual(events.map(describe).slice(0, 2).sort(), [
        "Added DNSZone/a",
        "Added DNSZone/b",
      ]);
      assert.equal(events[2]!.type, "Bookmark");
      assert.ok(
        Number(events[2]!.resourceVersion) >= Number(list.resourceVersion),
      );
    } finally {
      reader.close();
    }
  });

  test("delivers Added, Modified and Deleted in order", async (store) => {
    const reader = new EventReader(store.watch("DNSZone"));
    try {
      assert.equal((await reader.next())!.type, "Bookmark");
      await store.apply(zone("a"), { manager: "api" });
      await store.apply(clientGroup("default", "lan"), { manager: "api" });
      const mod = await store.apply(
        withMeta(zone("a"), { labels: { x: "1" } }),
        { manager: "api" },
      );
      await store.delete(zoneKey("a"));
      const events = await reader.take(3);
      assert.deepEqual(events.map(describe), [
        "Added DNSZone/a",
        "Modified DNSZone/a",
        "Deleted DNSZone/a",
      ]);
      assert.equal(events[1]!.resourceVersion, mod.metadata.resourceVersion);
      assert.deepEqual(events[1]!.object, mod);
      const rvs = events.map((e) => Number(e.resourceVersion));
      assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, String(rvs));
    } finally {
      reader.close();
    }
  });

  test("filters by namespace", async (store) => {
    const reader = new EventReader(
      store.watch("DNSRecordSet", { namespace: "blue" }),
    );
    try {
      await reader.next();
      await store.apply(recordSet("green", "www"), { manager: "api" });
      await store.apply(recordSet("blue", "www"), { manager: "api" });
      assert.deepEqual((await reader.take(1)).map(describe), [
        "Added DNSRecordSet/blue/www",
      ]);
    } finally {
      reader.close();
    }
  });

  test("resumed from a resourceVersion replays exactly the missed events", async (store) => {
    const seen = await store.apply(zone("a"), { manager: "api" });
    await store.apply(zone("b"), { manager: "api" });
    await store.apply(clientGroup("default", "lan"), { manager: "api" });
    await store.delete(zoneKey("a"));
    const reader = new EventReader(
      store.watch("DNSZone", {
        resourceVersion: seen.metadata.resourceVersion!,
      }),
    );
    try {
      assert.deepEqual((await reader.take(2)).map(describe), [
        "Added DNSZone/b",
        "Deleted DNSZone/a",
      ]);
      assert.ok(await reader.quietFor(100));
      await store.apply(zone("c"), { manager: "api" });
      assert.deepEqual((await reader.take(1)).map(describe), [
        "Added DNSZone/c",
      ]);
    } finally {
      reader.close();
    }
  });

  test(
    "resumed from a compacted resourceVersion fails with ExpiredError",
    async (store) => {
      const first = await store.apply(zone("a"), { manager: "api" });
      for (const n of ["b", "c", "d", "e"]) {
        await store.apply(zone(n), {
          manager: "api",
        });
      }
      const err = await firstReadError(() =>
        store.watch("DNSZone", {
          resourceVersion: first.metadata.resourceVersion!,
        })
      );
      assert.ok(err instanceof ExpiredError, String(err));
    },
    { feedLimit: 2 },
  );

  test("ends when closed", async (store) => {
    const reader = new EventReader(store.watch("DNSZone"));
    await reader.next();
    const pending = reader.next();
    reader.close();
    assert.equal(await pending, undefined);
  });

  test("ends when its signal aborts", async (store) => {
    const ac = new AbortController();
    const reader = new EventReader(
      store.watch("DNSZone", { signal: ac.signal }),
    );
    await reader.next();
    ac.abort();
    assert.equal(await reader.next(), undefined);
  });

  test("ends when the store closes", async (store) => {
    const reader = new EventReader(store.watch("DNSZone"));
    await reader.next();
    const pending = reader.next();
    await store.close();
    assert.equal(await pending, undefined);
  });
}
