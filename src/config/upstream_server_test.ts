import assert from "node:assert/strict";
import { parseUpstreamServer, type UpstreamServer } from "./upstream_server.ts";

Deno.test("parseUpstreamServer splits every accepted form", async (t) => {
  const cases: [string, Omit<UpstreamServer, "raw">][] = [
    ["1.2.3.4", { scheme: "udp", host: "1.2.3.4", port: 53 }],
    ["1.2.3.4:5353", { scheme: "udp", host: "1.2.3.4", port: 5353 }],
    ["[2001:db8::1]:53", { scheme: "udp", host: "2001:db8::1", port: 53 }],
    ["2001:db8::1", { scheme: "udp", host: "2001:db8::1", port: 53 }],
    ["udp://9.9.9.9", { scheme: "udp", host: "9.9.9.9", port: 53 }],
    ["tcp://9.9.9.9", { scheme: "tcp", host: "9.9.9.9", port: 53 }],
    ["tcp://[::1]:5300", { scheme: "tcp", host: "::1", port: 5300 }],
    ["tls://1.1.1.1", { scheme: "tls", host: "1.1.1.1", port: 853 }],
    ["tls://1.1.1.1#cloudflare-dns.com", {
      scheme: "tls",
      host: "1.1.1.1",
      port: 853,
      tlsServerName: "cloudflare-dns.com",
    }],
    ["tls://dns.quad9.net:8853", {
      scheme: "tls",
      host: "dns.quad9.net",
      port: 8853,
      tlsServerName: "dns.quad9.net",
    }],
    ["https://dns.google/dns-query", {
      scheme: "https",
      host: "dns.google",
      port: 443,
      path: "/dns-query",
      tlsServerName: "dns.google",
    }],
    ["https://[2606:4700::1111]:8443/resolve", {
      scheme: "https",
      host: "2606:4700::1111",
      port: 8443,
      path: "/resolve",
    }],
    ["https://1.1.1.1", {
      scheme: "https",
      host: "1.1.1.1",
      port: 443,
      path: "/dns-query",
    }],
    ["dns.example:5353", { scheme: "udp", host: "dns.example", port: 5353 }],
  ];
  for (const [text, want] of cases) {
    await t.step(text, () => {
      assert.deepEqual(parseUpstreamServer(text), { raw: text, ...want });
    });
  }
});

Deno.test("parseUpstreamServer rejects bad text naming it", async (t) => {
  const cases: [string, RegExp][] = [
    ["", /empty/],
    ["quic://1.1.1.1", /unknown scheme "quic"/],
    ["1.2.3.4:70000", /port 70000/],
    ["tcp://1.2.3.4/path", /has no path/],
    ["udp://1.1.1.1#name", /only for tls/],
    ["[1.2.3.4]:53", /not an IPv6 address/],
    ["1.2.3", /not an IPv4 address/],
    ["bad_host!:53", /neither an IP address nor a host name/],
    ["https://dns.example/dns-query?x=1", /query string/],
  ];
  for (const [text, why] of cases) {
    await t.step(text === "" ? "(empty)" : text, () => {
      assert.throws(
        () => parseUpstreamServer(text),
        (e: Error) =>
          e.message.startsWith(`Cannot parse upstream server "${text}"`) &&
          why.test(e.message),
      );
    });
  }
});

Deno.test("parseUpstreamServer never repeats a password in its error", async (t) => {
  for (
    const text of [
      "https://user:s3cretpw@dns.example/dns-query",
      "tls://user:s3cretpw@dns.example",
    ]
  ) {
    await t.step(text, () => {
      assert.throws(
        () => parseUpstreamServer(text),
        (e: Error) =>
          !e.message.includes("s3cretpw") && e.message.includes("***@"),
      );
    });
  }
});
