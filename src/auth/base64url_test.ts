import assert from "node:assert/strict";
import { base64urlLength, fromBase64url, toBase64url } from "./base64url.ts";

Deno.test("toBase64url and fromBase64url round-trip every length", () => {
  for (let n = 0; n <= 48; n++) {
    const bytes = crypto.getRandomValues(new Uint8Array(n));
    const text = toBase64url(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/);
    assert.equal(text.length, base64urlLength(n));
    assert.deepEqual(fromBase64url(text), bytes);
  }
});

Deno.test("fromBase64url refuses anything but canonical unpadded base64url", async (t) => {
  const cases: [string, string][] = [
    ["padding", "AQ=="],
    ["standard alphabet +", "+/8"],
    ["whitespace", "AQID BA"],
    ["a trailing newline", "AQID\n"],
    ["a dangling character", "AQIDB"],
    ["spare bits set", "AR"],
    ["spare bits set, two bytes", "AQJ"],
    ["non-ASCII", "AQÎD"],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => assert.equal(fromBase64url(text), undefined));
  }
  assert.deepEqual(fromBase64url("AQ"), new Uint8Array([1]));
  assert.deepEqual(fromBase64url("-_8"), new Uint8Array([0xfb, 0xff]));
  assert.deepEqual(fromBase64url(""), new Uint8Array(0));
});
