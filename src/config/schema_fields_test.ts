import assert from "node:assert/strict";
import { isAddressOrPrefix, isHostPort } from "./schema_fields.ts";

Deno.test("isHostPort accepts host:port forms", async (t) => {
  const cases: [string, boolean][] = [
    ["0.0.0.0:53", true],
    ["127.0.0.1:5353", true],
    ["[::]:53", true],
    ["[::1]:8080", true],
    ["dns.example.com:853", true],
    ["localhost:53", true],
    ["53", false],
    [":53", false],
    ["::1:53", false],
    ["1.2.3.4:70000", false],
    ["[nope]:53", false],
    ["host:port", false],
  ];
  for (const [text, want] of cases) {
    await t.step(text, () => assert.equal(isHostPort(text), want));
  }
});

Deno.test("isAddressOrPrefix accepts addresses and CIDR prefixes", async (t) => {
  const cases: [string, boolean][] = [
    ["10.0.0.0/8", true],
    ["::1/128", true],
    ["192.0.2.1", true],
    ["10.0.0.0/33", false],
    ["example.com", false],
  ];
  for (const [text, want] of cases) {
    await t.step(text, () => assert.equal(isAddressOrPrefix(text), want));
  }
});
