/**
 * The corpus objects are valid kudurru objects, their zone-file rendering is
 * strict RFC 1035 text, and the corpus covers what it promises.
 */
import { RECORD_TYPES } from "../../src/dns/rdata_text.ts";
import assert from "node:assert/strict";
import { validateObject } from "../../src/api/v1alpha1/validate.ts";
import { CORPUS, corpusZoneFiles, RECORD_SETS, ZONES } from "./corpus.ts";
import { renderRdata } from "./zone_file.ts";

Deno.test("interop corpus objects pass kudurru validation", async (t) => {
  for (const object of [...ZONES, ...RECORD_SETS]) {
    await t.step(`${object.kind}/${object.metadata.name}`, () => {
      const result = validateObject(object);
      assert.ok(result.ok, JSON.stringify(!result.ok && result.issues));
    });
  }
});

Deno.test("interop renderRdata makes external-dns names absolute", async (t) => {
  const rows: [string, string, string][] = [
    ["CNAME", "www.example.org", "www.example.org."],
    ["MX", "10 mail.example.org", "10 mail.example.org."],
    ["SRV", "0 5 5060 sip.example.org", "0 5 5060 sip.example.org."],
    ["HTTPS", "1 svc.example.org alpn=h2", '1 svc.example.org. alpn="h2"'],
    ["TXT", 'say "hi"', '"say \\"hi\\""'],
    ["A", "192.0.2.1", "192.0.2.1"],
  ];
  for (const [type, target, want] of rows) {
    await t.step(`${type} ${target}`, () => {
      assert.equal(renderRdata(type, target), want);
    });
  }
});

Deno.test("interop zone files start with the SOA from the DNSZone", () => {
  const main = corpusZoneFiles()[0]!.text.split("\n");
  assert.equal(
    main[1],
    "kudurru.test. 3600 IN SOA ns1.kudurru.test. hostmaster.kudurru.test. 2024010101 3600 900 1209600 120",
  );
  assert.ok(main.includes("kudurru.test. 3600 IN NS ns2.kudurru.test."));
});

Deno.test("interop corpus covers every record type", () => {
  const types = new Set(CORPUS.map((q) => q.qtype));
  for (
    const type of [
      ...RECORD_TYPES,
      "TYPE65400",
      "ANY",
      "SOA",
      "DS",
    ]
  ) assert.ok(types.has(type), type);
  assert.ok(CORPUS.length >= 60, `${CORPUS.length} queries`);
});
