import assert from "node:assert/strict";
import { TrustedProxies } from "./trusted_proxies.ts";

Deno.test("TrustedProxies matches exact addresses and CIDR prefixes of both families", () => {
  const proxies = new TrustedProxies([
    "192.0.2.10",
    "10.0.0.0/8",
    "2001:db8::/32",
    "::1",
  ]);
  assert.ok(proxies.trusts("192.0.2.10"));
  assert.ok(!proxies.trusts("192.0.2.11"));
  assert.ok(proxies.trusts("10.200.3.4"));
  assert.ok(!proxies.trusts("11.0.0.1"));
  assert.ok(proxies.trusts("2001:db8:ffff::1"));
  assert.ok(proxies.trusts("::1"));
  assert.ok(!proxies.trusts("2001:db9::1"));
  // A dual-stack socket reports IPv4 peers as IPv4-mapped IPv6.
  assert.ok(proxies.trusts("::ffff:10.1.2.3"));
  assert.ok(proxies.trusts("::ffff:192.0.2.10"));
  assert.ok(!proxies.trusts("not an address"));
  assert.ok(!proxies.trusts(""));
  // The memo gives the same verdicts the second time.
  assert.ok(proxies.trusts("10.200.3.4"));
  assert.ok(!proxies.trusts("11.0.0.1"));
  assert.ok(!proxies.empty);
  assert.ok(new TrustedProxies([]).empty);
});

Deno.test("TrustedProxies takes an IPv4-mapped prefix as its IPv4 prefix", () => {
  const proxies = new TrustedProxies(["::ffff:10.0.0.0/104"]);
  assert.ok(proxies.trusts("10.9.9.9"));
  assert.ok(proxies.trusts("::ffff:10.9.9.9"));
  assert.ok(!proxies.trusts("11.0.0.1"));
});

Deno.test("TrustedProxies refuses entries that are not addresses or prefixes", () => {
  for (
    const bad of [
      "proxy.example",
      "10.0.0.0/33",
      "10.0.0.0/",
      "2001:db8::/129",
      "0x7f.1",
      "10.0.0.0/8/8",
      "",
    ]
  ) {
    assert.throws(() => new TrustedProxies([bad]), TypeError, bad);
  }
});

Deno.test("clientOf walks X-Forwarded-For from the right past trusted proxies", () => {
  const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
  // The client wrote 203.0.113.9 itself: only what the proxies appended counts.
  assert.equal(
    proxies.clientOf("127.0.0.1", "203.0.113.9, 198.51.100.7, 10.1.2.3"),
    "198.51.100.7",
  );
  assert.equal(proxies.clientOf("127.0.0.1", "198.51.100.7"), "198.51.100.7");
  // Header lines joined by Headers.get.
  assert.equal(
    proxies.clientOf("127.0.0.1", "198.51.100.7, 10.0.0.2, 10.0.0.1"),
    "198.51.100.7",
  );
  // Every hop trusted: the leftmost is the client.
  assert.equal(proxies.clientOf("127.0.0.1", "10.0.0.5,10.0.0.1"), "10.0.0.5");
  // An untrusted peer's header is not read.
  assert.equal(
    proxies.clientOf("192.0.2.99", "198.51.100.7"),
    "192.0.2.99",
  );
  assert.equal(proxies.clientOf("127.0.0.1", null), "127.0.0.1");
});

Deno.test("clientOf reads ports and brackets, canonicalizes, and stops at garbage", () => {
  const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
  assert.equal(
    proxies.clientOf("127.0.0.1", "198.51.100.7:4711"),
    "198.51.100.7",
  );
  assert.equal(
    proxies.clientOf("127.0.0.1", "[2001:DB8:0::1]:4711"),
    "2001:db8::1",
  );
  assert.equal(proxies.clientOf("127.0.0.1", "2001:db8:0:0::1"), "2001:db8::1");
  assert.equal(
    proxies.clientOf("127.0.0.1", "::ffff:198.51.100.7"),
    "198.51.100.7",
  );
  // "unknown" stops the walk at the last hop known: the proxy that wrote it.
  assert.equal(
    proxies.clientOf("127.0.0.1", "198.51.100.7, unknown, 10.0.0.3"),
    "10.0.0.3",
  );
  assert.equal(proxies.clientOf("127.0.0.1", "unknown"), "127.0.0.1");
  assert.equal(proxies.clientOf("127.0.0.1", ""), "127.0.0.1");
  assert.equal(proxies.clientOf("127.0.0.1", ", 198.51.100.7"), "198.51.100.7");
  assert.equal(proxies.clientOf("127.0.0.1", "10.0.0.1,"), "127.0.0.1");
});
