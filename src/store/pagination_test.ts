import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  decodeContinue,
  encodeContinue,
  InvalidContinueError,
  MAX_PAGE_BATCH,
  pageOf,
  readPage,
} from "./pagination.ts";

const obj = (namespace: string, name: string): KObject => ({
  apiVersion: "v1",
  kind: "X",
  metadata: { name, namespace },
});

Deno.test("pagination continue token round-trips as base64url", () => {
  const token = encodeContinue({ namespace: "a/b", name: "ü+?" });
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeContinue(token), { namespace: "a/b", name: "ü+?" });
});

Deno.test("pagination rejects a malformed continue token", async (t) => {
  for (
    const token of [
      "%%%",
      encodeContinue({ namespace: "a", name: "b" }).slice(3),
      btoa("[1]"),
    ]
  ) {
    await t.step(token, () => {
      assert.throws(() => decodeContinue(token), InvalidContinueError);
    });
  }
});

Deno.test("pagination pages after the token's position", () => {
  const all = [obj("a", "1"), obj("a", "2"), obj("b", "1"), obj("c", "1")];
  const first = pageOf(all, 3, undefined);
  assert.deepEqual(first.items.map((o) => o.metadata.name), ["1", "2", "1"]);
  // The last object of page one is gone: the next page still starts after its position.
  const second = pageOf([all[0]!, all[1]!, all[3]!], 3, first.continue);
  assert.deepEqual(second.items.map((o) => o.metadata.namespace), ["c"]);
  assert.equal(second.continue, undefined);
});

Deno.test("pagination without a limit returns everything and no token", () => {
  const page = pageOf([obj("a", "1"), obj("a", "2")], undefined, undefined);
  assert.equal(page.items.length, 2);
  assert.equal(page.continue, undefined);
});

Deno.test("readPage reads on in growing batches while the selector skips objects", () => {
  const all: KObject[] = [];
  for (let i = 0; i < 5000; i++) {
    all.push(obj("a", String(i).padStart(5, "0")));
  }
  const reads: number[] = [];
  const readAfter = (
    after: { namespace: string; name: string } | undefined,
    n: number,
  ) => {
    reads.push(n);
    const start = after === undefined
      ? 0
      : all.findIndex((o) => o.metadata.name > after.name);
    return start < 0 ? [] : all.slice(start, start + n);
  };
  // Only the last object matches: batches of 3, 6, 12, … up to 1000.
  const page = readPage(
    readAfter,
    2,
    undefined,
    (o) => o.metadata.name === "04999",
  );
  assert.deepEqual(page.items.map((o) => o.metadata.name), ["04999"]);
  assert.equal(page.continue, undefined);
  assert.deepEqual(reads.slice(0, 5), [3, 6, 12, 24, 48]);
  assert.equal(Math.max(...reads), MAX_PAGE_BATCH);
  assert.equal(reads.reduce((a, b) => a + b, 0) >= 5000, true);
  // Without a filter, one read of limit + 1, and the same page as pageOf.
  reads.length = 0;
  const first = readPage(readAfter, 100, undefined, () => true);
  assert.deepEqual(reads, [101]);
  assert.deepEqual(first, pageOf(all, 100, undefined));
  const second = readPage(readAfter, 100, first.continue, () => true);
  assert.deepEqual(second, pageOf(all, 100, first.continue));
  // A limit above MAX_PAGE_BATCH reads limit + 1 at once.
  reads.length = 0;
  readPage(readAfter, 2000, undefined, (o) => o.metadata.name >= "04000");
  assert.deepEqual(reads, [2001, 2001, 2001]);
});
