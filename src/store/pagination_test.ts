import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  decodeContinue,
  encodeContinue,
  InvalidContinueError,
  pageOf,
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
