import { deepEqual, equal, match } from "node:assert/strict";
import { dataExample, dataHint, RECORD_TYPES } from "./zones_hints.ts";
import { strings } from "./strings.ts";

Deno.test("dataHint says what each type's data looks like", () => {
  match(dataHint("A"), /IPv4/);
  match(dataHint("AAAA"), /IPv6/);
  for (const type of ["CNAME", "NS", "PTR"]) match(dataHint(type), /name/);
  match(dataHint("MX"), /10 mail\.example\.com\./);
  match(dataHint("TXT"), /[Tt]ext/);
  match(dataHint("SRV"), /10 5 443 host\./);
  match(dataHint("CAA"), /0 issue "letsencrypt\.org"/);
  match(dataHint("SVCB"), /1 \. alpn=h2/);
  match(dataHint("HTTPS"), /1 \. alpn=h2/);
});

Deno.test("dataHint reads the type in any case, with spaces around", () => {
  equal(dataHint(" mx "), dataHint("MX"));
});

Deno.test("dataHint has a hint for every type the server serves by name", () => {
  for (const type of RECORD_TYPES) {
    const hint = dataHint(type);
    equal(hint === strings.zones.hints.other, false, type);
  }
});

Deno.test("TYPEnnn, unknown and empty types get the generic hint", () => {
  equal(dataHint("TYPE65400"), strings.zones.hints.other);
  equal(dataHint("WKS"), strings.zones.hints.other);
  equal(dataHint(""), strings.zones.hints.other);
});

Deno.test("dataExample is the hint's example alone", () => {
  equal(dataExample("A"), "192.168.1.20");
  equal(dataExample("MX"), "10 mail.example.com.");
  equal(dataExample("CAA"), '0 issue "letsencrypt.org"');
});

Deno.test("RECORD_TYPES are the ones the server serves by name", async () => {
  // The server's list, read as text: the UI's bundle does not import it.
  const source = await Deno.readTextFile(
    new URL("../../src/dns/rdata_text.ts", import.meta.url),
  );
  const list = /export const RECORD_TYPES = \[([^\]]*)\]/.exec(source)?.[1];
  const server = [...(list ?? "").matchAll(/"([A-Z0-9]+)"/g)].map((m) => m[1]);
  deepEqual([...RECORD_TYPES], server);
});
