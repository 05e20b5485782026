/** The pre-auth cookie: sealed, scoped to one provider, expiring, used once; and `next`. */
import assert from "node:assert/strict";
import { masterKey } from "../encryption_keys.ts";
import { seal, sealingKeys } from "../sealed.ts";
import {
  openPreAuth,
  type PreAuth,
  PREAUTH_LIFETIME_MS,
  safeNext,
  sealPreAuth,
  UsedStates,
} from "./preauth.ts";

async function keys(purpose: "loginState" | "sessionCookie" = "loginState") {
  const master = await masterKey(new Uint8Array(32).fill(7), "test");
  return await sealingKeys(
    { current: master, previous: undefined, notes: [] },
    purpose,
  );
}

const NOW = Date.parse("2026-06-01T12:00:00Z");
const PRE: PreAuth = {
  p: "corp",
  s: "state",
  n: "nonce",
  v: "verifier",
  r: "https://dns.example/api/v1/auth/oidc/corp/callback",
  next: "/zones",
  exp: NOW + PREAUTH_LIFETIME_MS,
};

Deno.test("the pre-auth cookie opens for its provider until it expires", async () => {
  const k = await keys();
  const cookie = await sealPreAuth(PRE, k);
  assert.ok(!cookie.includes("verifier"));
  assert.deepEqual(await openPreAuth(cookie, "corp", k, NOW), PRE);
  assert.equal(await openPreAuth(cookie, "other", k, NOW), undefined);
  assert.equal(
    await openPreAuth(cookie, "corp", k, NOW + PREAUTH_LIFETIME_MS),
    undefined,
  );
  assert.equal(await openPreAuth(undefined, "corp", k, NOW), undefined);
  assert.equal(await openPreAuth(cookie + "x", "corp", k, NOW), undefined);
});

Deno.test("a pre-auth sealed for another purpose, or with a far expiry, does not open", async () => {
  const k = await keys();
  const session = await seal(PRE, await keys("sessionCookie"));
  assert.equal(await openPreAuth(session, "corp", k, NOW), undefined);
  const forever = await sealPreAuth({ ...PRE, exp: NOW + 86_400_000 }, k);
  assert.equal(await openPreAuth(forever, "corp", k, NOW), undefined);
  const partial = await seal({ ...PRE, v: 1 }, k);
  assert.equal(await openPreAuth(partial, "corp", k, NOW), undefined);
});

Deno.test("a state is used once", () => {
  const used = new UsedStates(3);
  assert.equal(used.use("a", NOW + 10, NOW), true);
  assert.equal(used.use("a", NOW + 10, NOW), false);
  assert.equal(used.use("b", NOW + 10, NOW), true);
  // Past its expiry the entry may go: its cookie no longer opens anyway.
  assert.equal(used.use("c", NOW + 100, NOW + 20), true);
  assert.equal(used.use("c", NOW + 100, NOW + 20), false);
});

Deno.test("next is a path on this origin, or refused", () => {
  assert.equal(safeNext(undefined), "/");
  assert.equal(safeNext(""), "/");
  assert.equal(safeNext("/zones?x=1#y"), "/zones?x=1#y");
  for (
    const bad of [
      "//evil.example",
      "///evil.example",
      "/\\evil.example",
      "https://evil.example",
      "javascript:alert(1)",
      "zones",
      "/\tevil",
      "/x\r\nSet-Cookie: a=b",
      "/" + "a".repeat(3000),
    ]
  ) assert.equal(safeNext(bad), undefined, bad);
});
