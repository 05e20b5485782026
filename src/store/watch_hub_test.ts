import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { WatchHub } from "./watch_hub.ts";
import type { WatchEvent } from "./store.ts";

const obj = (name: string, namespace?: string): KObject => ({
  apiVersion: "v1",
  kind: "X",
  metadata: namespace ? { name, namespace } : { name },
});
const added = (o: KObject, rv: number): WatchEvent => ({
  type: "Added",
  object: o,
  resourceVersion: String(rv),
});

async function take(
  w: AsyncIterable<WatchEvent>,
  n: number,
): Promise<WatchEvent[]> {
  const it = w[Symbol.asyncIterator]();
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

/** True when the watcher yields nothing for ms (it is closed afterwards by the caller). */
async function nothingWithin(
  w: AsyncIterable<WatchEvent>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quiet = new Promise<"quiet">((
    resolve,
  ) => (timer = setTimeout(() => resolve("quiet"), ms)));
  const winner = await Promise.race([w[Symbol.asyncIterator]().next(), quiet]);
  clearTimeout(timer);
  return winner === "quiet";
}

Deno.test("watch hub close drops undelivered events and ends the watcher", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, [added(obj("a"), 1)]);
  hub.close();
  assert.deepEqual(await take(w, 1), []);
});

Deno.test("watch hub delivers initial events then newer published ones once", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 5, [{
    type: "Bookmark",
    resourceVersion: "5",
  }]);
  hub.publish("X", added(obj("old"), 5));
  hub.publish("Y", added(obj("other-kind"), 6));
  hub.publish("X", added(obj("new"), 7));
  hub.publish("X", added(obj("new"), 7));
  const got = (await take(w, 2)).map((e) =>
    `${e.type} ${e.object?.metadata.name ?? e.resourceVersion}`
  );
  assert.deepEqual(got, ["Bookmark 5", "Added new"]);
  assert.ok(await nothingWithin(w, 20));
  w.close();
});

Deno.test("watch hub filters by namespace", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X", namespace: "a" }, 0, []);
  hub.publish("X", added(obj("n1", "b"), 1));
  hub.publish("X", added(obj("n2", "a"), 2));
  assert.deepEqual((await take(w, 1)).map((e) => e.object!.metadata.name), [
    "n2",
  ]);
  hub.close();
});

Deno.test("watch hub failed watcher rejects its first read", async () => {
  const hub = new WatchHub();
  const w = hub.failed(new Error("gone"));
  await assert.rejects(w[Symbol.asyncIterator]().next(), /gone/);
});

Deno.test("watch hub failAll rejects a waiting read and forgets the watcher", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, []);
  const pending = w[Symbol.asyncIterator]().next();
  hub.failAll(new Error("expired"));
  await assert.rejects(pending, /expired/);
  assert.equal(hub.size, 0);
});

Deno.test("watch hub breaking out of for-await closes the watcher", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, [
    added(obj("a"), 1),
    added(obj("b"), 2),
  ]);
  for await (const _ of w) break;
  assert.equal(hub.size, 0);
});

Deno.test("watch hub an already aborted signal yields nothing", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, [], AbortSignal.abort());
  assert.equal((await w[Symbol.asyncIterator]().next()).done, true);
  assert.equal(hub.size, 0);
});

Deno.test("watch hub close ends every pending read, not only the last", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, []);
  const it = w[Symbol.asyncIterator]();
  // A read that lost a race against a timeout is still pending when the
  // reader asks again; both must settle.
  const first = it.next();
  const second = it.next();
  w.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), 1000);
  });
  const ended = await Promise.race([Promise.all([first, second]), late]);
  clearTimeout(timer);
  assert.notEqual(ended, "late", "a pending read never settled");
  assert.deepEqual(
    (ended as IteratorResult<WatchEvent>[]).map((r) => r.done),
    [true, true],
  );
});

Deno.test("watch hub hands published events to pending reads in order", async () => {
  const hub = new WatchHub();
  const w = hub.open({ kind: "X" }, 0, []);
  const it = w[Symbol.asyncIterator]();
  const first = it.next();
  const second = it.next();
  hub.publish("X", added(obj("a"), 1));
  hub.publish("X", added(obj("b"), 2));
  const names = (await Promise.all([first, second])).map((r) =>
    r.done ? "done" : r.value.object?.metadata.name
  );
  assert.deepEqual(names, ["a", "b"]);
  hub.close();
});
