import assert from "node:assert/strict";
import { parseRdata } from "../dns/rdata_text.ts";
import { formatRdata, formatRRSet, typeName } from "./format.ts";

Deno.test("formatRdata writes presentation format as dig prints it", async (t) => {
  const cases: [string, string, string][] = [
    ["A", "192.0.2.1", "192.0.2.1"],
    ["MX", "10 mail.example.org", "10 mail.example.org."],
    ["SRV", "0 5 5060 sip.example.org.", "0 5 5060 sip.example.org."],
    ["TXT", '"a \\"q\\"" "b"', '"a \\"q\\"" "b"'],
    ["TXT", "v=spf1 -all", '"v=spf1 -all"'],
    ["CAA", '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ["HTTPS", "1 . alpn=h2,h3 port=8443", '1 . alpn="h2,h3" port=8443'],
    ["TYPE65280", "\\# 2 abcd", "\\# 2 ABCD"],
  ];
  for (const [type, text, want] of cases) {
    await t.step(`${type} ${text}`, () => {
      assert.equal(formatRdata(parseRdata(type, text)), want);
    });
  }
});

Deno.test("formatRRSet writes one line per record", () => {
  assert.deepEqual(
    formatRRSet({
      name: "www.example.org.",
      type: 1,
      ttl: 300,
      rdata: [
        { type: "A", address: "192.0.2.1" },
        { type: "A", address: "192.0.2.2" },
      ],
    }),
    [
      "www.example.org. 300 IN A 192.0.2.1",
      "www.example.org. 300 IN A 192.0.2.2",
    ],
  );
});

Deno.test("typeName falls back to TYPEnnn", () => {
  assert.equal(typeName(28), "AAAA");
  assert.equal(typeName(6), "SOA");
  assert.equal(typeName(65280), "TYPE65280");
});
