import assert from "node:assert/strict";
import { formatListenAddress, parseListenAddress } from "./listen_address.ts";

Deno.test("parseListenAddress splits host and port", async (t) => {
  const cases: [string, string, number][] = [
    ["0.0.0.0:53", "0.0.0.0", 53],
    ["127.0.0.1:5353", "127.0.0.1", 5353],
    ["[::]:53", "::", 53],
    ["[::1]:5353", "::1", 5353],
    ["127.0.0.1:0", "127.0.0.1", 0],
  ];
  for (const [text, hostname, port] of cases) {
    await t.step(text, () => {
      assert.deepEqual(parseListenAddress(text), { hostname, port });
    });
  }
});

Deno.test("parseListenAddress rejects text that is not host:port", async (t) => {
  for (const text of ["::1:53", "127.0.0.1", "[::1]", "1.2.3.4:70000", ""]) {
    await t.step(JSON.stringify(text), () => {
      assert.throws(
        () => parseListenAddress(text),
        /^Error: Cannot parse listener address ".*": expected "host:port"/,
      );
    });
  }
});

Deno.test("formatListenAddress brackets IPv6 hosts", () => {
  assert.equal(formatListenAddress({ hostname: "::1", port: 53 }), "[::1]:53");
  assert.equal(
    formatListenAddress({ hostname: "0.0.0.0", port: 53 }),
    "0.0.0.0:53",
  );
});
