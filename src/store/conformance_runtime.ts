/**
 * Conformance: runtime values (getRuntime/setRuntime), the seam for the
 * Kudurru.status fields such as blocking.disabledUntil. Set, read, overwrite,
 * delete, key checks, and concurrent writers where the last write wins.
 */
import assert from "node:assert/strict";
import { type OpenStore, withStore, zone } from "./conformance_fixtures.ts";
import { InvalidRuntimeValueError } from "./runtime_values.ts";
import type { Store } from "./store.ts";

const KEY = "blocking.disabledUntil";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function registerRuntimeTests(name: string, open: OpenStore): void {
  const test = (what: string, fn: (store: Store) => Promise<void>) =>
    Deno.test(`${name} runtime ${what}`, () => withStore(open, fn));

  test("get of an unset key is undefined", async (store) => {
    assert.equal(await store.getRuntime(KEY), undefined);
  });

  test("set stores the value with its time and actor", async (store) => {
    const before = Date.now();
    const set = await store.setRuntime(KEY, "2030-01-01T00:00:00.000Z", {
      actor: "alice",
    });
    const after = Date.now();
    const got = await store.getRuntime(KEY);
    assert.deepEqual(got, set);
    assert.equal(got?.key, KEY);
    assert.equal(got?.value, "2030-01-01T00:00:00.000Z");
    assert.equal(got?.actor, "alice");
    assert.match(got?.updatedAt ?? "", ISO);
    const at = Date.parse(got?.updatedAt ?? "");
    assert.ok(at >= before - 1000 && at <= after + 1000, got?.updatedAt);
  });

  test("a set without an actor stores none", async (store) => {
    await store.setRuntime(KEY, "x");
    const got = await store.getRuntime(KEY);
    assert.equal(got?.value, "x");
    assert.equal(Object.hasOwn(got ?? {}, "actor"), false);
  });

  test("overwrite replaces value and actor", async (store) => {
    await store.setRuntime(KEY, "first", { actor: "alice" });
    await store.setRuntime(KEY, "second", { actor: "bob" });
    const got = await store.getRuntime(KEY);
    assert.equal(got?.value, "second");
    assert.equal(got?.actor, "bob");
    await store.setRuntime(KEY, "third");
    const third = await store.getRuntime(KEY);
    assert.equal(third?.value, "third");
    assert.equal(third?.actor, undefined);
  });

  test("null deletes, and deleting an unset key is harmless", async (store) => {
    await store.setRuntime(KEY, "on");
    assert.equal(
      await store.setRuntime(KEY, null, { actor: "bob" }),
      undefined,
    );
    assert.equal(await store.getRuntime(KEY), undefined);
    assert.equal(await store.setRuntime(KEY, null), undefined);
    assert.equal(await store.getRuntime(KEY), undefined);
  });

  test("keys are independent", async (store) => {
    await store.setRuntime("a.one", "1");
    await store.setRuntime("a.two", "2");
    await store.setRuntime("a.one", null);
    assert.equal(await store.getRuntime("a.one"), undefined);
    assert.equal((await store.getRuntime("a.two"))?.value, "2");
  });

  test("a value may be empty or hold any text", async (store) => {
    for (const value of ["", "line\nbreak", "ünïcødé ☃", "x".repeat(4096)]) {
      await store.setRuntime(KEY, value);
      assert.equal((await store.getRuntime(KEY))?.value, value);
    }
  });

  test("bad keys and oversized values are refused and nothing is stored", async (store) => {
    const bad: [string, string][] = [
      ["", "v"],
      [".leading", "v"],
      ["trailing-", "v"],
      ["has space", "v"],
      ["slash/inside", "v"],
      ["k".repeat(64), "v"],
      [KEY, "x".repeat(4097)],
    ];
    for (const [key, value] of bad) {
      await assert.rejects(
        store.setRuntime(key, value),
        InvalidRuntimeValueError,
        key,
      );
    }
    assert.equal(await store.getRuntime(KEY), undefined);
  });

  test("concurrent writers: the last write wins and no write is torn", async (store) => {
    // Issued together, applied in the order issued; the final value and its
    // actor must come from one write, the last.
    const writes = Array.from(
      { length: 20 },
      (_, i) => store.setRuntime(KEY, `value-${i}`, { actor: `writer-${i}` }),
    );
    const results = await Promise.all(writes);
    assert.deepEqual(
      results.map((r) => r?.value),
      writes.map((_, i) => `value-${i}`),
    );
    const got = await store.getRuntime(KEY);
    assert.equal(got?.value, "value-19");
    assert.equal(got?.actor, "writer-19");
  });

  test("values are not objects: not listed, not in snapshots", async (store) => {
    await store.apply(zone("a"), { manager: "api" });
    await store.setRuntime(KEY, "2030-01-01T00:00:00.000Z");
    assert.equal((await store.list("Runtime")).items.length, 0);
    const snapshot = await store.snapshot();
    assert.match(snapshot, /DNSZone/);
    assert.doesNotMatch(snapshot, /disabledUntil|2030-01-01/);
  });
}
