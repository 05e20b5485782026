import assert from "node:assert/strict";
import type { PolicyDecision } from "../../blocking/blocking_snapshot.ts";
import { type Identity, IdentityMemo } from "./identity_memo.ts";

const identity = (group: string): Identity => ({
  groups: [group],
  policy: {} as PolicyDecision,
  expires: Infinity,
});

Deno.test("IdentityMemo: keyed by address and client ID", () => {
  const memo = new IdentityMemo();
  memo.set("192.0.2.1", undefined, identity("plain"));
  memo.set("192.0.2.1", "phone", identity("phone"));
  memo.set("192.0.2.2", "phone", identity("other"));
  assert.equal(memo.get("192.0.2.1", undefined)?.groups[0], "plain");
  assert.equal(memo.get("192.0.2.1", "phone")?.groups[0], "phone");
  assert.equal(memo.get("192.0.2.1", "tablet"), undefined);
  assert.equal(memo.size, 3);
  memo.forgetAddress("192.0.2.1");
  assert.equal(memo.get("192.0.2.1", undefined), undefined);
  assert.equal(memo.get("192.0.2.1", "phone"), undefined);
  assert.equal(memo.get("192.0.2.2", "phone")?.groups[0], "other");
  assert.equal(memo.size, 1);
});

Deno.test("IdentityMemo: cleared when full", () => {
  const memo = new IdentityMemo(3);
  for (let i = 1; i <= 3; i++) {
    memo.set(`192.0.2.${i}`, undefined, identity(`g${i}`));
  }
  memo.set("192.0.2.1", undefined, identity("again")); // replaces: still 3
  assert.equal(memo.size, 3);
  memo.set("192.0.2.4", "id", identity("g4"));
  assert.equal(memo.size, 1);
  assert.equal(memo.get("192.0.2.2", undefined), undefined);
  assert.equal(memo.get("192.0.2.4", "id")?.groups[0], "g4");
});
