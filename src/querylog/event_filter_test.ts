import assert from "node:assert/strict";
import { createEventFilter, truncateAddress } from "./event_filter.ts";
import { queryEvent, querylogSettings } from "./test_support.ts";

Deno.test("event filter excludes domains by suffix on label boundaries", async (t) => {
  const filter = createEventFilter(querylogSettings({
    exclude: {
      domains: ["Example.COM", "*.corp.test", ".lan"],
      sudn: false,
    },
  }));
  const cases: [string, boolean][] = [
    ["example.com.", true],
    ["www.example.com.", true],
    ["WWW.Example.Com.", true],
    ["notexample.com.", false],
    ["example.com.evil.net.", false],
    ["corp.test.", true],
    ["a.b.corp.test.", true],
    ["printer.lan.", true],
    ["lan.example.org.", false],
  ];
  for (const [qname, excluded] of cases) {
    await t.step(qname, () => {
      assert.equal(filter.excludes(queryEvent({ qname })), excluded);
    });
  }
});

Deno.test("event filter excludes special-use names only when sudn is on", async (t) => {
  const on = createEventFilter(querylogSettings());
  const off = createEventFilter(querylogSettings({ exclude: { sudn: false } }));
  const cases: [string, boolean][] = [
    ["localhost.", true],
    ["foo.localhost.", true],
    ["printer.local.", true],
    ["router.home.arpa.", true],
    ["health.kudurru.internal.", true],
    ["x.onion.", true],
    ["_dns.resolver.arpa.", true],
    ["ipv4only.arpa.", true],
    ["1.1.168.192.in-addr.arpa.", true],
    ["5.0.0.10.in-addr.arpa.", true],
    ["1.1.1.1.in-addr.arpa.", false],
    ["8.8.8.8.in-addr.arpa.", false],
    ["www.test.", false],
    ["www.example.com.", false],
    ["local.example.com.", false],
  ];
  for (const [qname, excluded] of cases) {
    await t.step(qname, () => {
      assert.equal(on.excludes(queryEvent({ qname })), excluded);
      assert.equal(off.excludes(queryEvent({ qname })), false);
    });
  }
});

Deno.test("event filter excludes clients by address, prefix or group", async (t) => {
  const filter = createEventFilter(querylogSettings({
    exclude: {
      clients: [
        "192.0.2.7",
        "10.0.0.0/8",
        "2001:db8:1::/48",
        "kids",
        "lab/iot",
      ],
    },
  }));
  const cases: [string, string[], boolean][] = [
    ["192.0.2.7", [], true],
    ["192.0.2.8", [], false],
    ["10.20.30.40", [], true],
    ["::ffff:10.1.1.1", [], true],
    ["2001:db8:1:5::9", [], true],
    ["2001:db8:2::9", [], false],
    ["192.0.2.8", ["default/kids"], true],
    ["192.0.2.8", ["lab/iot"], true],
    ["192.0.2.8", ["other/iot"], false],
    ["not-an-address", [], false],
  ];
  for (const [clientAddress, groups, excluded] of cases) {
    await t.step(`${clientAddress} ${groups.join(",")}`, () => {
      assert.equal(
        filter.excludes(queryEvent({ clientAddress, groups })),
        excluded,
      );
    });
  }
});

Deno.test("event filter keeps or truncates clients by privacy mode", () => {
  const full = createEventFilter(querylogSettings({ privacy: "full" }));
  assert.equal(full.clientText("192.0.2.77"), "192.0.2.77");
  assert.equal(full.port(5353), 5353);
  const anonymized = createEventFilter(
    querylogSettings({ privacy: "anonymized" }),
  );
  assert.equal(anonymized.clientText("192.0.2.77"), "192.0.2.0");
  assert.equal(anonymized.clientText("2001:db8:1:2::5"), "2001:db8:1::");
  assert.equal(anonymized.port(5353), 0);
});

Deno.test("truncateAddress keeps the /24 or /48 and leaves non-addresses alone", () => {
  assert.equal(truncateAddress("203.0.113.200"), "203.0.113.0");
  assert.equal(truncateAddress("::ffff:203.0.113.200"), "203.0.113.0");
  assert.equal(truncateAddress("fe80::1:2:3:4"), "fe80::");
  assert.equal(truncateAddress("client-7"), "client-7");
});

Deno.test("event filter splits names only on unescaped dots", async (t) => {
  const filter = createEventFilter(querylogSettings({
    exclude: { domains: ["apple.com"], sudn: true },
  }));
  // Presentation text as parseQuery writes it: a dot inside a label is `\.`.
  const cases: [string, boolean][] = [
    ["tunnel-data\\.local.", false],
    ["exfil.secret\\.apple.com.", false],
    ["x\\.apple.com.", false],
    ["x\\\\.apple.com.", true],
    ["x\\\\\\.apple.com.", false],
    ["printer\\.x.local.", true],
    ["www.apple.com.", true],
  ];
  for (const [qname, excluded] of cases) {
    await t.step(qname, () => {
      assert.equal(filter.excludes(queryEvent({ qname })), excluded);
      assert.equal(filter.nameExcluded(qname), excluded);
    });
  }
});
