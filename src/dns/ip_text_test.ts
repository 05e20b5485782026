import assert from "node:assert/strict";
import { isCidr, isHostPort, isIpAddress } from "./ip_text.ts";

Deno.test("isIpAddress accepts only dotted quads and IPv6", async (t) => {
  const rows: [string, boolean][] = [
    ["10.0.0.1", true],
    ["fd00::1", true],
    ["::ffff:192.0.2.1", true],
    ["10.1", false],
    ["0x0a.0.0.1", false],
    ["fe80::1%eth0", false],
    ["", false],
  ];
  for (const [text, want] of rows) {
    await t.step(
      text || "(empty)",
      () => assert.equal(isIpAddress(text), want),
    );
  }
});

Deno.test("isCidr checks address and prefix length", async (t) => {
  const rows: [string, boolean][] = [
    ["10.0.0.0/8", true],
    ["10.0.0.1/32", true],
    ["fd00::/8", true],
    ["10.0.0.0/33", false],
    ["fd00::/129", false],
    ["10.0.0.0", false],
    ["10/8", false],
  ];
  for (const [text, want] of rows) {
    await t.step(text, () => assert.equal(isCidr(text), want));
  }
});

Deno.test("isHostPort accepts addresses with optional ports", async (t) => {
  const rows: [string, boolean][] = [
    ["192.0.2.1", true],
    ["192.0.2.1:53", true],
    ["2001:db8::1", true],
    ["[2001:db8::1]:5353", true],
    ["192.0.2.1:0", false],
    ["192.0.2.1:65536", false],
    ["[192.0.2.1]:53", false],
    ["ns1.example.org:53", false],
  ];
  for (const [text, want] of rows) {
    await t.step(text, () => assert.equal(isHostPort(text), want));
  }
});
