import assert from "node:assert/strict";
import { findKind, KINDS } from "./kinds.ts";

Deno.test("KINDS lists the kinds in documentation order", () => {
  assert.deepEqual(KINDS.map((k) => k.kind), [
    "DNSZone",
    "DNSRecordSet",
    "BlockList",
    "ClientGroup",
    "Policy",
  ]);
});

Deno.test("findKind accepts kind, plural, singular and short names", async (t) => {
  const rows: [string, string][] = [
    ["DNSZone", "DNSZone"],
    ["dnszone", "DNSZone"],
    ["dnszones", "DNSZone"],
    ["zone", "DNSZone"],
    ["Zones", "DNSZone"],
    ["DNSRecordSet", "DNSRecordSet"],
    ["rrset", "DNSRecordSet"],
    ["recordset", "DNSRecordSet"],
    ["dnsrecordsets", "DNSRecordSet"],
    ["blocklist", "BlockList"],
    ["list", "BlockList"],
    ["BLOCKLISTS", "BlockList"],
    ["clientgroup", "ClientGroup"],
    ["group", "ClientGroup"],
    ["policy", "Policy"],
    ["policies", "Policy"],
    ["pol", "Policy"],
  ];
  for (const [word, kind] of rows) {
    await t.step(word, () => assert.equal(findKind(word)?.kind, kind));
  }
});

Deno.test("findKind returns undefined for an unknown word", () => {
  assert.equal(findKind("DNSZon"), undefined);
});

Deno.test("KINDS short names are unique across kinds", () => {
  const words = KINDS.flatMap((k) => [k.plural, k.singular, ...k.shortNames]);
  assert.equal(new Set(words).size, words.length);
});
