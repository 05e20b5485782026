import assert from "node:assert/strict";
import {
  parseTTL,
  parseZoneFile,
  ZoneFileLimitError,
  type ZoneFileParse,
} from "./zone_file_parse.ts";
import { formatZoneFile } from "./zone_file_format.ts";
import { formatRdata } from "./format.ts";
import type { RRSet } from "../dns/rrset.ts";
import type { ZoneContent } from "./types.ts";
import {
  EXAMPLE_ORG,
  INNER_CORP,
  KID_EXAMPLE_ORG,
  SECOND_TEST,
} from "./testdata/lookup_zones.ts";
import { buildZoneContent } from "./content.ts";
import { NOW, recordSet, zone } from "./testdata/zone_objects.ts";

const O = "example.org.";

/** Records as `owner ttl TYPE rdata` lines, in file order. */
function lines(parse: ZoneFileParse): string[] {
  return parse.records.map((r) =>
    `${r.owner} ${r.ttl} ${r.type} ${formatRdata(r.rdata)}`
  );
}

/** The RRsets of a parse, grouped as a zone groups them, each as sorted lines. */
function rrsetsOf(parse: ZoneFileParse): string[] {
  const out: string[] = [];
  for (const r of parse.records) {
    out.push(`${r.owner} ${r.ttl} ${r.code} ${formatRdata(r.rdata)}`);
  }
  return out.sort();
}

function contentLines(rrsets: RRSet[]): string[] {
  return rrsets.flatMap((r) =>
    r.rdata.map((d) => `${r.name} ${r.ttl} ${r.type} ${formatRdata(d)}`)
  ).sort();
}

Deno.test("zone file parse reads the RFC 1035 syntax: $ORIGIN, $TTL, @, relative names, blank owners, parentheses", () => {
  const text = [
    "$ORIGIN example.org.",
    "$TTL 1h",
    "@ IN SOA ns1 hostmaster (",
    "        2024010101 ; serial",
    "        3600 900 2w 5m )",
    "        IN NS ns1",
    "        NS ns.other.net.",
    "@ 300 MX 10 mail",
    "www IN 60 A 192.0.2.1 ; class then TTL",
    "    60 IN AAAA 2001:db8::1",
    "mail A 192.0.2.25",
    "_sip._tcp SRV 0 5 5060 sip",
    "alias CNAME www",
    "apex-alias CNAME @",
    '*.wild TXT "wild; card" two words',
    "$ORIGIN sub",
    "deep A 192.0.2.9",
    "name.other.net. A 192.0.2.10",
  ].join("\n");
  const parse = parseZoneFile(text, { origin: O });
  assert.deepEqual(parse.skipped, []);
  assert.deepEqual(lines(parse), [
    `${O} 3600 SOA ns1.${O} hostmaster.${O} 2024010101 3600 900 1209600 300`,
    `${O} 3600 NS ns1.${O}`,
    `${O} 3600 NS ns.other.net.`,
    `${O} 300 MX 10 mail.${O}`,
    `www.${O} 60 A 192.0.2.1`,
    `www.${O} 60 AAAA 2001:db8::1`,
    `mail.${O} 3600 A 192.0.2.25`,
    `_sip._tcp.${O} 3600 SRV 0 5 5060 sip.${O}`,
    `alias.${O} 3600 CNAME www.${O}`,
    `apex-alias.${O} 3600 CNAME ${O}`,
    `*.wild.${O} 3600 TXT "wild; card" "two" "words"`,
    `deep.sub.${O} 3600 A 192.0.2.9`,
    `name.other.net. 3600 A 192.0.2.10`,
  ]);
  assert.equal(parse.records[0]!.line, 3, "a record's line is where it starts");
  assert.equal(parse.records[4]!.line, 9);
});

Deno.test("zone file parse without $TTL takes the previous record's TTL, and none before any", () => {
  const parse = parseZoneFile(
    "a A 192.0.2.1\nb 120 A 192.0.2.2\nc A 192.0.2.3\n",
    { origin: O },
  );
  assert.deepEqual(parse.records.map((r) => r.ttl), [undefined, 120, 120]);
});

Deno.test("zone file parse skips what it cannot take, with line, text and reason", () => {
  const text = [
    "$ORIGIN example.org.", // 1
    "$INCLUDE /etc/passwd", // 2
    "$GENERATE 1-10 host$ A 192.0.2.$", // 3
    "$BOGUS x", // 4
    'chaos CH TXT "x"', // 5
    'hinfo HINFO "pc" "linux"', // 6
    "sig RRSIG A 8 2 300 20300101000000 20200101000000 1 example.org. AAAA", // 7
    "typo AA 192.0.2.1", // 8
    "bad A 192.0.2.300", // 9
    'open TXT "never closed', // 10
    "noType 300 IN", // 11
    "ok A 192.0.2.1", // 12
    "meta ANY \\# 0", // 13
    "mx MX ten mail", // 14
  ].join("\n");
  const parse = parseZoneFile(text, { origin: O });
  assert.deepEqual(lines(parse), [`ok.${O} undefined A 192.0.2.1`]);
  const reasons = parse.skipped.map((s) => [s.line, s.reason]);
  assert.deepEqual(reasons.map(([line]) => line), [
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    13,
    14,
  ]);
  const reason = (line: number) =>
    parse.skipped.find((s) => s.line === line)!.reason;
  assert.match(reason(2), /\$INCLUDE is not followed/);
  assert.match(reason(3), /\$GENERATE/);
  assert.match(reason(4), /unknown directive \$BOGUS/);
  assert.match(reason(5), /class CH is not served/);
  assert.match(reason(6), /does not serve HINFO/);
  assert.match(reason(7), /does not serve RRSIG/);
  assert.match(reason(8), /unknown record type "AA"/);
  assert.match(reason(9), /A address "192\.0\.2\.300"/);
  assert.match(reason(10), /quoted string is not closed/);
  assert.match(reason(11), /no record type/);
  assert.match(reason(13), /meta-type/);
  assert.match(reason(14), /MX preference "ten"/);
  assert.equal(parse.skipped[0]!.text, "$INCLUDE /etc/passwd");
  assert.equal(parse.skippedCount, 12);
});

Deno.test("zone file parse: a blank owner before any record is skipped", () => {
  const parse = parseZoneFile("  A 192.0.2.1\n", { origin: O });
  assert.match(parse.skipped[0]!.reason, /no owner/);
});

Deno.test("zone file parse reads RFC 3597 generic data, for known and unknown types", () => {
  const parse = parseZoneFile(
    [
      "a A \\# 4 C0000201",
      "b TYPE1 \\# 4 C0000202",
      "c TYPE65400 \\# 4 DEADBEEF",
      "d DS \\# 4 01020304",
      "e type65401 \\# 0",
    ].join("\n"),
    { origin: O },
  );
  assert.deepEqual(parse.skipped, []);
  assert.deepEqual(lines(parse), [
    `a.${O} undefined A 192.0.2.1`,
    `b.${O} undefined A 192.0.2.2`,
    `c.${O} undefined TYPE65400 \\# 4 DEADBEEF`,
    `d.${O} undefined TYPE43 \\# 4 01020304`,
    `e.${O} undefined TYPE65401 \\# 0`,
  ]);
});

Deno.test("zone file parse: names lowercase with one spelling of escapes; case-insensitive words", () => {
  const parse = parseZoneFile(
    "WWW.Example.ORG. in 30 a 192.0.2.1\n\\*.esc a 192.0.2.2\n\\065b A 192.0.2.3",
    { origin: O },
  );
  assert.deepEqual(parse.records.map((r) => r.owner), [
    `www.${O}`,
    `*.esc.${O}`,
    `ab.${O}`,
  ]);
});

Deno.test("zone file parse limits bytes and records", () => {
  assert.throws(
    () =>
      parseZoneFile("a A 192.0.2.1\n".repeat(10), { origin: O, maxBytes: 100 }),
    (e) => e instanceof ZoneFileLimitError && e.limit === "bytes",
  );
  assert.throws(
    () => parseZoneFile("é".repeat(40), { origin: O, maxBytes: 60 }),
    (e) => e instanceof ZoneFileLimitError && e.limit === "bytes",
    "bytes are UTF-8 octets",
  );
  assert.throws(
    () =>
      parseZoneFile("a A 192.0.2.1\n".repeat(11), {
        origin: O,
        maxRecords: 10,
      }),
    (e) => e instanceof ZoneFileLimitError && e.limit === "records",
  );
  const fine = parseZoneFile("a A 192.0.2.1\n".repeat(10), {
    origin: O,
    maxRecords: 10,
  });
  assert.equal(fine.records.length, 10);
  const noisy = parseZoneFile("bad\n".repeat(50), { origin: O, maxSkipped: 5 });
  assert.equal(noisy.skipped.length, 5);
  assert.equal(noisy.skippedCount, 50);
});

Deno.test("zone file parse TTLs: seconds and BIND units, at most 2^31-1", () => {
  assert.equal(parseTTL("300"), 300);
  assert.equal(parseTTL("1h30m"), 5400);
  assert.equal(parseTTL("1W2D"), 777600);
  assert.equal(parseTTL("2147483647"), 2147483647);
  assert.equal(parseTTL("2147483648"), undefined);
  assert.equal(parseTTL("1x"), undefined);
  assert.equal(parseTTL("IN"), undefined);
});

/** Export a zone, read it back: the same RRsets, TTLs included. */
function assertRoundTrip(content: ZoneContent): void {
  const text = formatZoneFile(content, { comments: ["test"] });
  const parse = parseZoneFile(text, { origin: content.name });
  assert.deepEqual(parse.skipped, [], text);
  assert.deepEqual(rrsetsOf(parse), contentLines(content.rrsets));
}

Deno.test("zone file parse reads back every lookup test zone as exported", async (t) => {
  for (
    const content of [EXAMPLE_ORG, SECOND_TEST, KID_EXAMPLE_ORG, INNER_CORP]
  ) {
    await t.step(content.name, () => assertRoundTrip(content));
  }
});

Deno.test("zone file parse reads back a zone built from record sets: TXT, escapes, wildcards, opaque types", () => {
  const build = buildZoneContent(
    zone({}, 2024),
    [recordSet("all", [
      {
        dnsName: "example.org",
        recordType: "TXT",
        targets: ["raw text; with semicolon", '"two" "strings"'],
      },
      { dnsName: "*.example.org", recordType: "A", targets: ["192.0.2.1"] },
      {
        dnsName: "\\*.star.example.org",
        recordType: "A",
        targets: ["192.0.2.2"],
      },
      {
        dnsName: "a\\.dot.example.org",
        recordType: "A",
        targets: ["192.0.2.3"],
      },
      {
        dnsName: "caa.example.org",
        recordType: "CAA",
        targets: ['0 issue "ca.example; account=1"'],
      },
      {
        dnsName: "svc.example.org",
        recordType: "HTTPS",
        targets: ['1 . alpn="h2,h3" port=8443 ipv6hint=2001:db8::1'],
      },
      {
        dnsName: "n.example.org",
        recordType: "NAPTR",
        targets: ['100 10 "u" "E2U+sip" "!^.*$!sip:a@example.org!" .'],
      },
      {
        dnsName: "t.example.org",
        recordType: "TLSA",
        targets: ["3 1 1 " + "ab".repeat(32)],
      },
      {
        dnsName: "ds.example.org",
        recordType: "TYPE43",
        targets: ["\\# 4 01020304"],
      },
      {
        dnsName: "ttl.example.org",
        recordType: "A",
        targets: ["192.0.2.4"],
        recordTTL: 60,
      },
      {
        dnsName: "ttl.example.org",
        recordType: "A",
        targets: ["192.0.2.5"],
        recordTTL: 600,
      },
    ])],
    NOW,
  );
  assert.deepEqual(build.problems, []);
  assertRoundTrip(build.content);
});
