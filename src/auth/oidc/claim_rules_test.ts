/** claimValidationRules: equal, contained, booleans as text, absent fails. */
import assert from "node:assert/strict";
import { checkClaimRules, type ClaimRule } from "./claim_rules.ts";
import { LoginRefusedError } from "./claims.ts";

const HD: ClaimRule = {
  claim: "hd",
  requiredValue: "example.com",
  message: "",
};

function refusal(fn: () => unknown): LoginRefusedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LoginRefusedError) return e;
    throw e;
  }
  throw new Error("not refused");
}

Deno.test("a string claim must equal the value", () => {
  checkClaimRules([HD], { hd: "example.com" });
  const e = refusal(() => checkClaimRules([HD], { hd: "example.org" }));
  assert.equal(e.reason, "claim_rule");
  assert.equal(e.message, "claim hd must be example.com");
  // No prefix, suffix or case folding: the value is the value.
  refusal(() => checkClaimRules([HD], { hd: "sub.example.com" }));
  refusal(() => checkClaimRules([HD], { hd: "EXAMPLE.COM" }));
});

Deno.test("an absent claim, or one of another type, fails", () => {
  for (const hd of [undefined, null, 1, { v: "example.com" }, ""]) {
    const e = refusal(() => checkClaimRules([HD], { hd }));
    assert.equal(e.reason, "claim_rule", String(hd));
  }
  refusal(() => checkClaimRules([HD], {}));
});

Deno.test("a list claim must contain the value", () => {
  const rule = { claim: "roles", requiredValue: "dns", message: "" };
  checkClaimRules([rule], { roles: ["web", "dns"] });
  refusal(() => checkClaimRules([rule], { roles: ["web"] }));
  refusal(() => checkClaimRules([rule], { roles: [] }));
});

Deno.test("booleans compare as true or false", () => {
  const rule = {
    claim: "email_verified",
    requiredValue: "true",
    message: "verify your email at the provider first",
  };
  checkClaimRules([rule], { email_verified: true });
  checkClaimRules([rule], { email_verified: "true" });
  const e = refusal(() => checkClaimRules([rule], { email_verified: false }));
  assert.equal(e.message, "verify your email at the provider first");
});

Deno.test("every rule must hold; the first that fails is named", () => {
  const tid = { claim: "tid", requiredValue: "t-1", message: "" };
  checkClaimRules([HD, tid], { hd: "example.com", tid: "t-1" });
  const e = refusal(() =>
    checkClaimRules([HD, tid], { hd: "example.com", tid: "t-2" })
  );
  assert.equal(e.message, "claim tid must be t-1");
  checkClaimRules([], {});
});
