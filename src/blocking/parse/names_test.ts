/** normalizeName: the one place that decides what a valid rule name is. */

import assert from "node:assert/strict";
import { normalizeName } from "./names.ts";

const CASES: Array<[input: string, expected: string | null, why: string]> = [
  ["ads.example.com", "ads.example.com", "already normal"],
  ["ADS.Example.COM", "ads.example.com", "lowercased"],
  ["ads.example.com.", "ads.example.com", "trailing dot stripped"],
  ["com", "com", "a single label (a whole TLD) is a name"],
  ["_dmarc.example", "_dmarc.example", "underscore labels occur in real lists"],
  [
    "-lead.example",
    "-lead.example",
    "leading hyphen accepted (real lists have it)",
  ],
  ["trail-.example", "trail-.example", "trailing hyphen accepted"],
  ["bücher.example", "xn--bcher-kva.example", "IDN to punycode"],
  ["BÜCHER.example.", "xn--bcher-kva.example", "IDN, uppercase, trailing dot"],
  ["xn--bcher-kva.example", "xn--bcher-kva.example", "punycode kept"],
  ["192.0.2.1", "192.0.2.1", "IPv4 address"],
  ["2001:DB8:0:0::1", "2001:db8::1", "IPv6 canonicalised"],
  ["::", "::", "IPv6 unspecified"],
  [
    "0.0.0.0.beeglivesex.com",
    "0.0.0.0.beeglivesex.com",
    "digits-first name, not an IP",
  ],
  [`${"a".repeat(63)}.example`, `${"a".repeat(63)}.example`, "63-char label"],
  [`${"a".repeat(64)}.example`, null, "64-char label"],
  [
    Array(127).fill("a").join("."),
    Array(127).fill("a").join("."),
    "253 characters",
  ],
  [Array(127).fill("a").join(".") + "b", null, "254 characters"],
  ["", null, "empty"],
  [".", null, "root only"],
  [".example", null, "leading dot"],
  ["a..example", null, "empty label"],
  ["a.example..", null, "two trailing dots"],
  ["ads example", null, "space"],
  ["*.example", null, "wildcard is not a name"],
  ["ads.example/path", null, "URL path"],
  ["user@ads.example", null, "URL userinfo must not reach the URL parser"],
  ["ads.example:80", null, "port"],
  ["fe80::1%eth0", null, "zone id"],
  ["1:2:3", null, "neither IPv6 nor name"],
  ["bücher/x.example", null, "IDN with URL syntax"],
];

for (const [input, expected, why] of CASES) {
  Deno.test(`normalizeName: ${why} (${JSON.stringify(input.slice(0, 30))})`, () => {
    assert.equal(normalizeName(input), expected);
  });
}

Deno.test("normalizeName: the result is stable (normalising twice changes nothing)", () => {
  for (const [input] of CASES) {
    const once = normalizeName(input);
    if (once !== null) assert.equal(normalizeName(once), once, input);
  }
});
