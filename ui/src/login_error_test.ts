/** The refused login's cookie: read when well-formed, ignored otherwise. */
import assert from "node:assert/strict";
import { loginErrorOf } from "./login_error.ts";

const value = encodeURIComponent(JSON.stringify({
  key: "login_refused",
  message: "claim hd must be example.com",
  reason: "claim_rule",
}));

Deno.test("the error is read from either cookie name, among others", () => {
  for (const name of ["kudurru_login_error", "__Host-kudurru_login_error"]) {
    assert.deepEqual(loginErrorOf(`a=1; ${name}=${value}; b=2`), {
      key: "login_refused",
      message: "claim hd must be example.com",
      reason: "claim_rule",
    });
  }
});

Deno.test("no cookie, another cookie or a malformed one: no error", () => {
  assert.equal(loginErrorOf(""), undefined);
  assert.equal(loginErrorOf(`other_login_error=${value}`), undefined);
  assert.equal(loginErrorOf("kudurru_login_error=%7Bnot-json"), undefined);
  assert.equal(
    loginErrorOf(`kudurru_login_error=${encodeURIComponent('{"key":1}')}`),
    undefined,
  );
});
