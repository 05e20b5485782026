/** From ID token claims to a user name, groups and the identity key. */
import assert from "node:assert/strict";
import { type ClaimMappings, LoginRefusedError, mapClaims } from "./claims.ts";

const MAP: ClaimMappings = {
  username: { claim: "preferred_username", prefix: "" },
  groups: { claim: "groups", prefix: "corp:" },
};
const BASE = { iss: "https://idp.example", sub: "s-1" };

function refusal(fn: () => unknown): LoginRefusedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LoginRefusedError) return e;
    throw e;
  }
  throw new Error("not refused");
}

Deno.test("users are named <provider>:<name>, keyed by provider, iss and sub", () => {
  const id = mapClaims("corp", MAP, {
    ...BASE,
    preferred_username: "alice",
    groups: ["ops", "ops", "staff"],
  });
  assert.equal(id.username, "corp:alice");
  assert.deepEqual(id.groups, ["corp:ops", "corp:staff"]);
  assert.deepEqual(id.key, { provider: "corp", iss: BASE.iss, sub: "s-1" });
});

Deno.test("the username falls back: preferred_username, upn, verified email, sub", () => {
  const custom = { ...MAP, username: { claim: "nickname", prefix: "x-" } };
  assert.equal(
    mapClaims("c", custom, { ...BASE, nickname: "n", upn: "u" }).username,
    "c:x-n",
  );
  assert.equal(
    mapClaims("c", custom, { ...BASE, upn: "u@e" }).username,
    "c:x-u@e",
  );
  assert.equal(
    mapClaims("c", MAP, { ...BASE, email: "e@x", email_verified: true })
      .username,
    "c:e@x",
  );
  // Unverified (or verification not stated): the email names nobody.
  assert.equal(
    mapClaims("c", MAP, { ...BASE, email: "e@x", email_verified: false })
      .username,
    "c:s-1",
  );
  assert.equal(
    mapClaims("c", MAP, { ...BASE, email: "e@x", email_verified: "true" })
      .username,
    "c:s-1",
  );
  const byEmail = { ...MAP, username: { claim: "email", prefix: "" } };
  assert.equal(
    mapClaims("c", byEmail, { ...BASE, email: "e@x" }).username,
    "c:s-1",
  );
});

Deno.test("groups may be one string; anything else is refused", () => {
  assert.deepEqual(
    mapClaims("c", MAP, { ...BASE, groups: "ops" }).groups,
    ["corp:ops"],
  );
  assert.deepEqual(mapClaims("c", MAP, BASE).groups, []);
  assert.equal(
    refusal(() => mapClaims("c", MAP, { ...BASE, groups: { a: 1 } })).reason,
    "claims",
  );
});

Deno.test("group overage claims are refused with an explanation", () => {
  for (
    const extra of [
      { hasgroups: true },
      { _claim_names: { groups: "src1" }, _claim_sources: { src1: {} } },
    ]
  ) {
    const e = refusal(() => mapClaims("c", MAP, { ...BASE, ...extra }));
    assert.equal(e.reason, "group_overage");
    assert.match(e.message, /ApplicationGroup/);
  }
});

Deno.test("a token without issuer or subject, or with control characters, is refused", () => {
  assert.equal(
    refusal(() => mapClaims("c", MAP, { iss: "x" })).reason,
    "claims",
  );
  assert.equal(
    refusal(() => mapClaims("c", MAP, { ...BASE, preferred_username: "a\nb" }))
      .reason,
    "claims",
  );
});
