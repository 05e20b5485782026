import assert from "node:assert/strict";
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { ipv4Text, ipv6Text } from "./address_text.ts";

Deno.test("ipv6Text writes RFC 5952 text", () => {
  const cases: [string, string][] = [
    ["0:0:0:0:0:0:0:0", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
    ["2001:0DB8:0000:0000:0000:0000:0000:0066", "2001:db8::66"],
    ["0:0:0:0:0:ffff:c000:201", "::ffff:c000:201"],
  ];
  for (const [input, expected] of cases) {
    const bytes = Uint8Array.from([
      0xff,
      ...ipaddr.IPv6.parse(input).toByteArray(),
    ]);
    assert.equal(ipv6Text(bytes, 1), expected, input);
  }
});

Deno.test("ipv6Text agrees with ipaddr.js, the list parser's canonical form", () => {
  // Zero-heavy groups so runs of zeros of every length and place occur.
  const group = fc.oneof(
    fc.constant(0),
    fc.constant(0),
    fc.integer({ min: 0, max: 0xffff }),
  );
  fc.assert(
    fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
      const bytes = new Uint8Array(16);
      groups.forEach((g, i) => {
        bytes[2 * i] = g >> 8;
        bytes[2 * i + 1] = g & 0xff;
      });
      assert.equal(
        ipv6Text(bytes, 0),
        ipaddr.fromByteArray([...bytes]).toString(),
      );
    }),
    { numRuns: 2000 },
  );
});

Deno.test("ipv4Text writes a dotted quad", () => {
  assert.equal(ipv4Text(Uint8Array.from([9, 192, 0, 2, 1]), 1), "192.0.2.1");
  assert.equal(ipv4Text(Uint8Array.from([0, 0, 0, 0]), 0), "0.0.0.0");
  assert.equal(
    ipv4Text(Uint8Array.from([255, 255, 255, 255]), 0),
    "255.255.255.255",
  );
});
