import assert from "node:assert/strict";
import { closestMatch } from "./closest_match.ts";

Deno.test("closestMatch suggests a key one typo away", () => {
  assert.equal(
    closestMatch("listners", ["node", "listeners", "cache"]),
    "listeners",
  );
});

Deno.test("closestMatch ignores case", () => {
  assert.equal(closestMatch("MAXTTL", ["minTTL", "maxTTL"]), "maxTTL");
});

Deno.test("closestMatch suggests nothing for an unrelated word", () => {
  assert.equal(
    closestMatch("banana", ["node", "listeners", "cache"]),
    undefined,
  );
});

Deno.test("closestMatch suggests the key an abbreviation starts", () => {
  assert.equal(closestMatch("proto", ["address", "protocols"]), "protocols");
});
