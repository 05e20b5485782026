import assert from "node:assert/strict";
import { hexOf } from "./hex.ts";

Deno.test("hexOf writes two lowercase digits per octet", () => {
  assert.equal(hexOf(new Uint8Array([0, 1, 0x18, 0xab, 0xff])), "000118abff");
  assert.equal(hexOf(new Uint8Array()), "");
});
