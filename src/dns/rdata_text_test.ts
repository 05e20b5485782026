import assert from "node:assert/strict";
import {
  checkRdata,
  parseRdata,
  type Rdata,
  RdataSyntaxError,
  RECORD_TYPES,
  typeCode,
} from "./rdata_text.ts";

const encoder = new TextEncoder();
const text = (s: string) => encoder.encode(s);
const hex = (s: string) =>
  Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));

const sha256 =
  "8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1";
const sha1 = "dd465c09cfa51fb45020cc83316fff21b9ec74ac";

type ValidRow = [type: string, text: string, want: Rdata];
type InvalidRow = [type: string, text: string, want: RegExp];

const valid: ValidRow[] = [
  ["A", "192.0.2.1", { type: "A", address: "192.0.2.1" }],
  ["A", " 10.0.0.20 ", { type: "A", address: "10.0.0.20" }],
  ["AAAA", "2001:DB8:0:0::1", { type: "AAAA", address: "2001:db8::1" }],
  ["AAAA", "::", { type: "AAAA", address: "::" }],
  ["AAAA", "::ffff:192.0.2.1", { type: "AAAA", address: "::ffff:c000:201" }],
  ["CNAME", "target.example.com", {
    type: "CNAME",
    target: "target.example.com.",
  }],
  ["CNAME", "Target.Example.", { type: "CNAME", target: "Target.Example." }],
  ["DNAME", "example.net", { type: "DNAME", target: "example.net." }],
  ["NS", "ns1.example.com.", { type: "NS", target: "ns1.example.com." }],
  ["PTR", "host\\.one.example.com", {
    type: "PTR",
    target: "host\\.one.example.com.",
  }],
  ["MX", "10 mail.example.com", {
    type: "MX",
    preference: 10,
    exchange: "mail.example.com.",
  }],
  ["MX", "0 .", { type: "MX", preference: 0, exchange: "." }],
  ["SRV", "0 5 5060 sip.example.com", {
    type: "SRV",
    priority: 0,
    weight: 5,
    port: 5060,
    target: "sip.example.com.",
  }],
  ["SRV", "0 0 0 .", {
    type: "SRV",
    priority: 0,
    weight: 0,
    port: 0,
    target: ".",
  }],
  ["NAPTR", '100 10 "S" "SIP+D2U" "" _sip._udp.example.com', {
    type: "NAPTR",
    order: 100,
    preference: 10,
    flags: text("S"),
    service: text("SIP+D2U"),
    regexp: text(""),
    replacement: "_sip._udp.example.com.",
  }],
  ["NAPTR", '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .', {
    type: "NAPTR",
    order: 100,
    preference: 10,
    flags: text("u"),
    service: text("E2U+sip"),
    regexp: text("!^.*$!sip:info@example.com!"),
    replacement: ".",
  }],
  ["TLSA", `3 1 1 ${sha256.slice(0, 20)} ${sha256.slice(20)}`, {
    type: "TLSA",
    usage: 3,
    selector: 1,
    matchingType: 1,
    data: hex(sha256),
  }],
  ["TLSA", "3 0 0 30820122", {
    type: "TLSA",
    usage: 3,
    selector: 0,
    matchingType: 0,
    data: hex("30820122"),
  }],
  ["TLSA", `3 1 2 ${sha256}${sha256.toUpperCase()}`, {
    type: "TLSA",
    usage: 3,
    selector: 1,
    matchingType: 2,
    data: hex(sha256 + sha256),
  }],
  ["SSHFP", `4 2 ${sha256}`, {
    type: "SSHFP",
    algorithm: 4,
    fingerprintType: 2,
    fingerprint: hex(sha256),
  }],
  ["SSHFP", `1 1 ${sha1}`, {
    type: "SSHFP",
    algorithm: 1,
    fingerprintType: 1,
    fingerprint: hex(sha1),
  }],
  ["CAA", '0 issue "letsencrypt.org"', {
    type: "CAA",
    flags: 0,
    tag: "issue",
    value: text("letsencrypt.org"),
  }],
  ["CAA", "0 issue letsencrypt.org", {
    type: "CAA",
    flags: 0,
    tag: "issue",
    value: text("letsencrypt.org"),
  }],
  ["CAA", '128 iodef "mailto:security@example.com"', {
    type: "CAA",
    flags: 128,
    tag: "iodef",
    value: text("mailto:security@example.com"),
  }],
  ["CAA", '0 issue "letsencrypt.org; validationmethods=dns-01"', {
    type: "CAA",
    flags: 0,
    tag: "issue",
    value: text("letsencrypt.org; validationmethods=dns-01"),
  }],
  ["CAA", '0 issuewild ";"', {
    type: "CAA",
    flags: 0,
    tag: "issuewild",
    value: text(";"),
  }],
  ["TXT", '"v=spf1 -all"', { type: "TXT", strings: [text("v=spf1 -all")] }],
  ["TXT", '"a" "b"', { type: "TXT", strings: [text("a"), text("b")] }],
  ["TXT", '""', { type: "TXT", strings: [text("")] }],
  ["TXT", '"say \\"hi\\" \\\\ \\065"', {
    type: "TXT",
    strings: [text('say "hi" \\ A')],
  }],
  ["TXT", '"heritage=external-dns,external-dns/owner=default"', {
    type: "TXT",
    strings: [text("heritage=external-dns,external-dns/owner=default")],
  }],
  ["TXT", "v=DKIM1; k=rsa; p=MIGf", {
    type: "TXT",
    strings: [text("v=DKIM1; k=rsa; p=MIGf")],
  }],
  ["TXT", "raw \\065 stays literal", {
    type: "TXT",
    strings: [text("raw \\065 stays literal")],
  }],
  ["TXT", "x".repeat(300), {
    type: "TXT",
    strings: [text("x".repeat(255)), text("x".repeat(45))],
  }],
  // 200 × 2-octet "é": a cut at octet 255 would split the 128th; it moves back to 254.
  ["TXT", "é".repeat(200), {
    type: "TXT",
    strings: [text("é".repeat(127)), text("é".repeat(73))],
  }],
  ["HTTPS", "1 . alpn=h2,h3", {
    type: "HTTPS",
    priority: 1,
    target: ".",
    params: [{ key: "alpn", ids: [text("h2"), text("h3")] }],
  }],
  ["HTTPS", "0 svc.example.com", {
    type: "HTTPS",
    priority: 0,
    target: "svc.example.com.",
    params: [],
  }],
  [
    "SVCB",
    "1 svc.example.com. mandatory=port,alpn alpn=h2 no-default-alpn port=8443 " +
    "ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:DB8::1",
    {
      type: "SVCB",
      priority: 1,
      target: "svc.example.com.",
      params: [
        { key: "mandatory", keys: [3, 1] },
        { key: "alpn", ids: [text("h2")] },
        { key: "no-default-alpn" },
        { key: "port", port: 8443 },
        { key: "ipv4hint", addresses: ["192.0.2.1", "192.0.2.2"] },
        { key: "ipv6hint", addresses: ["2001:db8::1"] },
      ],
    },
  ],
  // keyNNNNN carries the key's wire octets (RFC 9460 §2.1), kept as the
  // named param: key3 "\001\187" is port 443.
  ["SVCB", '1 . key3="\\001\\187" key1="\\002h2"', {
    type: "SVCB",
    priority: 1,
    target: ".",
    params: [{ key: "port", port: 443 }, {
      key: "alpn",
      ids: [Uint8Array.from([0x68, 0x32])],
    }],
  }],
  ["SVCB", "1 . ech=AAEC", {
    type: "SVCB",
    priority: 1,
    target: ".",
    params: [{ key: "ech", config: Uint8Array.from([0, 1, 2]) }],
  }],
  ["SVCB", '1 doh.example dohpath="/dns-query{?dns}"', {
    type: "SVCB",
    priority: 1,
    target: "doh.example.",
    params: [{ key: "dohpath", template: "/dns-query{?dns}" }],
  }],
  // RFC 9460 Appendix D.2, figure 6: a generic key with an escaped octet.
  ["SVCB", '1 foo.example.com. key667="hello\\210qoo"', {
    type: "SVCB",
    priority: 1,
    target: "foo.example.com.",
    params: [{
      key: "generic",
      code: 667,
      value: Uint8Array.from([...text("hello"), 210, ...text("qoo")]),
    }],
  }],
  ["SVCB", "1 . key9", {
    type: "SVCB",
    priority: 1,
    target: ".",
    params: [{ key: "generic", code: 9, value: new Uint8Array() }],
  }],
  // RFC 9460 Appendix D.2, figure 8: a literal comma and backslash inside one ALPN id.
  ["SVCB", '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"', {
    type: "SVCB",
    priority: 16,
    target: "foo.example.org.",
    params: [{ key: "alpn", ids: [text("f\\oo,bar"), text("h2")] }],
  }],
  // A single zone-file backslash is consumed by character-string decoding, so
  // `\,` still separates ids; a literal comma needs `\\,` (RFC 9460 Appendix A.1).
  ["SVCB", "1 . alpn=h2\\,h3", {
    type: "SVCB",
    priority: 1,
    target: ".",
    params: [{ key: "alpn", ids: [text("h2"), text("h3")] }],
  }],
  ["TYPE65280", "\\# 4 0a000001", {
    type: "unknown",
    code: 65280,
    data: hex("0a000001"),
  }],
  ["TYPE0", "\\# 0", { type: "unknown", code: 0, data: new Uint8Array() }],
  // RFC 3597 §5: a known type in generic form becomes that type's data.
  ["TYPE1", "\\# 4 c0 00 02 01", { type: "A", address: "192.0.2.1" }],
  ["TYPE5", "\\# 5 03 77 77 77 00", { type: "CNAME", target: "www." }],
  ["TYPE15", "\\# 3 00 0a 00", {
    type: "MX",
    preference: 10,
    exchange: ".",
  }],
];

const invalid: InvalidRow[] = [
  [
    "A",
    "01.2.3.4",
    /^A address "01\.2\.3\.4" is not a dotted-quad IPv4 address$/,
  ],
  ["A", "1.2.3", /A address "1\.2\.3" is not a dotted-quad/],
  ["A", "256.1.1.1", /A address "256\.1\.1\.1" is not a dotted-quad/],
  ["A", "::1", /A address "::1" is not a dotted-quad/],
  ["A", "192.0.2.1 192.0.2.2", /^A needs 1 fields \(address\), got 2$/],
  ["A", "", /^A needs 1 fields \(address\), got 0$/],
  [
    "AAAA",
    "fe80::1%eth0",
    /^AAAA address "fe80::1%eth0" is not an IPv6 address$/,
  ],
  ["AAAA", "192.0.2.1", /AAAA address "192\.0\.2\.1" is not an IPv6/],
  [
    "AAAA",
    "::ffff:01.2.3.4",
    /AAAA address "::ffff:01\.2\.3\.4" is not an IPv6/,
  ],
  ["AAAA", "1::2::3", /AAAA address "1::2::3" is not an IPv6/],
  ["AAAA", "[::1]", /AAAA address "\[::1\]" is not an IPv6/],
  [
    "CNAME",
    "a..example",
    /^CNAME target "a\.\.example" is not a valid name: .*empty label$/,
  ],
  [
    "CNAME",
    "*.example.com",
    /CNAME target "\*\.example\.com" is not a valid name: wildcard/,
  ],
  [
    "CNAME",
    '"quoted.example"',
    /^CNAME target "quoted\.example" must not be quoted$/,
  ],
  ["CNAME", "a.example b.example", /^CNAME needs 1 fields \(target\), got 2$/],
  ["DNAME", "", /^DNAME needs 1 fields \(target\), got 0$/],
  ["NS", "ns1.example\\", /NS target .* ends with a lone backslash/],
  ["PTR", "a".repeat(64) + ".example", /PTR target .* longer than 63 octets/],
  ["MX", "x mail.example.com", /^MX preference "x" is not a number 0-65535$/],
  [
    "MX",
    "65536 mail.example.com",
    /^MX preference "65536" is not a number 0-65535$/,
  ],
  ["MX", "-1 mail.example.com", /^MX preference "-1" is not a number/],
  ["MX", "10", /^MX needs 2 fields \(preference exchange\), got 1$/],
  [
    "MX",
    "10 mail..example",
    /^MX exchange "mail\.\.example" is not a valid name/,
  ],
  [
    "SRV",
    "0 5 70000 sip.example",
    /^SRV port "70000" is not a number 0-65535$/,
  ],
  ["SRV", "a 5 5060 sip.example", /^SRV priority "a" is not a number/],
  ["SRV", "0 w 5060 sip.example", /^SRV weight "w" is not a number/],
  [
    "SRV",
    "0 5 5060",
    /^SRV needs 4 fields \(priority weight port target\), got 3$/,
  ],
  ["SRV", "0 5 5060 a b", /^SRV needs 4 fields/],
  [
    "NAPTR",
    '100 10 "S" "SIP+D2U" "!a!b!" _sip._udp.example',
    /^NAPTR regexp and replacement are both set/,
  ],
  [
    "NAPTR",
    '100 10 "S+" "SIP+D2U" "" _sip._udp.example',
    /^NAPTR flags "S\+" may only hold letters and digits$/,
  ],
  [
    "NAPTR",
    '100 10 "S" "SIP+D2U" ""',
    /^NAPTR needs 6 fields \(order preference flags service regexp replacement\), got 5$/,
  ],
  [
    "NAPTR",
    'x 10 "S" "SIP+D2U" "" .',
    /^NAPTR order "x" is not a number 0-65535$/,
  ],
  [
    "NAPTR",
    `100 10 "S" "${"s".repeat(256)}" "" .`,
    /^NAPTR service is 256 octets; the limit is 255$/,
  ],
  [
    "TLSA",
    `3 1 1 ${sha256.slice(2)}`,
    /^TLSA data is 31 octets but SHA-256 \(type 1\) needs 32$/,
  ],
  [
    "TLSA",
    `3 1 2 ${sha256}`,
    /^TLSA data is 32 octets but SHA-512 \(type 2\) needs 64$/,
  ],
  ["TLSA", "3 1 0 zz", /^TLSA data has a non-hex character "z"$/],
  ["TLSA", "3 1 0 abc", /^TLSA data has an odd number of hex digits$/],
  ["TLSA", `256 1 1 ${sha256}`, /^TLSA usage "256" is not a number 0-255$/],
  [
    "TLSA",
    "3 1 1",
    /^TLSA needs 4 fields \(usage selector matching type data\), got 3$/,
  ],
  ["TLSA", '3 1 0 "abcd"', /^TLSA data must not be quoted$/],
  [
    "SSHFP",
    `1 1 ${sha256}`,
    /^SSHFP fingerprint is 32 octets but SHA-1 \(type 1\) needs 20$/,
  ],
  [
    "SSHFP",
    `1 2 ${sha1}`,
    /^SSHFP fingerprint is 20 octets but SHA-256 \(type 2\) needs 32$/,
  ],
  ["SSHFP", `x 1 ${sha1}`, /^SSHFP algorithm "x" is not a number 0-255$/],
  [
    "SSHFP",
    "1 1",
    /^SSHFP needs 3 fields \(algorithm fingerprint type fingerprint\), got 2$/,
  ],
  ["CAA", '256 issue "ca.example"', /^CAA flags "256" is not a number 0-255$/],
  [
    "CAA",
    '0 iss-ue "ca.example"',
    /^CAA tag "iss-ue" may only hold letters and digits$/,
  ],
  [
    "CAA",
    "0 issue ca.example; validationmethods=dns-01",
    /^CAA value has unquoted spaces/,
  ],
  ["CAA", "0 issue", /^CAA needs 3 fields \(flags tag value\), got 2$/],
  [
    "TXT",
    '"a" b',
    /^TXT string 2 "b" is not quoted; quote every string or none$/,
  ],
  ["TXT", '"unterminated', /^TXT data has an unterminated quoted string$/],
  ["TXT", '"a"b', /^TXT data has text right after a closing quote$/],
  [
    "TXT",
    `"${"x".repeat(256)}"`,
    /^TXT string 1 is 256 octets; the limit is 255/,
  ],
  [
    "TXT",
    '"\\256"',
    /^TXT string 1 has an escape "\\256" that is not \\000-\\255$/,
  ],
  [
    "TXT",
    "x".repeat(65536),
    /^TXT data is 65794 octets in wire form; the limit is 65535$/,
  ],
  [
    "HTTPS",
    "0 . alpn=h2",
    /^HTTPS AliasMode \(priority 0\) must not have params$/,
  ],
  [
    "HTTPS",
    "1 . alpn=h2 alpn=h3",
    /^HTTPS param "alpn" appears more than once$/,
  ],
  [
    "SVCB",
    "1 . port=8443 key3=\\000\\001",
    /^SVCB param "key3" appears more than once$/,
  ],
  ["SVCB", "1 . port=70000", /^SVCB port "70000" is not a number 0-65535$/],
  ["SVCB", "1 . port", /^SVCB port needs a value$/],
  ["SVCB", "1 . alpn=", /^SVCB alpn needs a value$/],
  [
    "SVCB",
    "1 . ipv4hint=192.0.2",
    /^SVCB ipv4hint "192\.0\.2" is not an IPv4 address$/,
  ],
  [
    "SVCB",
    "1 . ipv6hint=192.0.2.1",
    /^SVCB ipv6hint "192\.0\.2\.1" is not an IPv6 address$/,
  ],
  ["SVCB", "1 . no-default-alpn", /^SVCB no-default-alpn needs alpn$/],
  [
    "SVCB",
    "1 . alpn=h2 no-default-alpn=x",
    /^SVCB no-default-alpn takes no value$/,
  ],
  [
    "SVCB",
    "1 . mandatory=alpn port=1",
    /^SVCB mandatory lists "alpn", which is not present$/,
  ],
  [
    "SVCB",
    "1 . mandatory=mandatory",
    /^SVCB mandatory must not list "mandatory"$/,
  ],
  [
    "SVCB",
    "1 . mandatory=port,port port=1",
    /^SVCB mandatory lists "port" twice$/,
  ],
  [
    "SVCB",
    "1 . foo=bar",
    /^SVCB param key "foo" is unknown \(use keyNNNNN for others\)$/,
  ],
  ["SVCB", "1 . key65535=x", /^SVCB param key "key65535" is unknown/],
  ["SVCB", "1 . key01=x", /^SVCB param key "key01" is unknown/],
  ["SVCB", "1 . ALPN=h2", /^SVCB param key "ALPN" is unknown/],
  ["SVCB", "1 . ech=not*base64", /^SVCB ech is not valid base64$/],
  [
    "SVCB",
    "1 . dohpath=/dns-query",
    /^SVCB dohpath "\/dns-query" must be a path template with a \{\?dns\} variable$/,
  ],
  [
    "SVCB",
    "1 . alpn=h2,,h3",
    /^SVCB alpn has an empty item in its comma-separated list$/,
  ],
  ["SVCB", '1 . alpn="h2', /^SVCB params "alpn="h2" cannot be parsed$/],
  [
    "SVCB",
    "1",
    /^SVCB needs at least 2 fields \(priority target \[params…\]\), got 1$/,
  ],
  ["SVCB", "x . alpn=h2", /^SVCB priority "x" is not a number 0-65535$/],
  ["SVCB", "1 a..b alpn=h2", /^SVCB target "a\.\.b" is not a valid name/],
  [
    "TYPE65280",
    "\\# 3 0a000001",
    /^TYPE65280 generic data is 4 octets but the length field says 3$/,
  ],
  [
    "TYPE65280",
    "0a000001",
    /^TYPE65280 data must be in RFC 3597 generic form "\\# <length> <hex>"$/,
  ],
  ["TYPE65280", "\\#", /^TYPE65280 generic data has no length$/],
  [
    "TYPE65280",
    "\\# 1 zz",
    /^TYPE65280 generic data has a non-hex character "z"$/,
  ],
  ["TYPE01", "\\# 0", /^Unknown record type "TYPE01"$/],
  ["TYPE65536", "\\# 0", /^Unknown record type "TYPE65536"$/],
  ["FOO", "x", /^Unknown record type "FOO"$/],
  ["a", "192.0.2.1", /^Unknown record type "a"$/],
  [
    "A",
    "\\# 4 c0000201",
    /^A data in RFC 3597 generic form \(\\#\) is not supported; write the A data itself$/,
  ],
  ["SVCB", "1 . key3=443", /port is 2 octets/],
  ["SVCB", "1 . key4", /ipv4hint is 4-octet addresses/],
  // A known type in generic form is read as that type's wire data (an
  // empty CNAME, a 3-octet A are refused); a meta-type is never a record.
  [
    "TYPE1",
    "\\# 3 c00002",
    /^TYPE1 \\# data is not A data: an address is 4 octets$/,
  ],
  ["TYPE5", "\\# 0", /^TYPE5 \\# data is not CNAME data/],
  ["TYPE16", "\\# 3 05 61 62", /^TYPE16 \\# data is not TXT data/],
  ["TYPE52", "\\# 1 00", /^TYPE52 is TLSA: write it as TLSA with its own data/],
  ["TYPE41", "\\# 0", /^TYPE41 \(OPT\) is a meta-type \(RFC 6895\)/],
  ["TYPE255", "\\# 0", /^TYPE255 \(ANY\) is a meta-type/],
];

Deno.test("parseRdata reads valid data into structured values", async (t) => {
  for (const [type, data, want] of valid) {
    await t.step(`${type} ${data.slice(0, 60)}`, () => {
      assert.deepEqual(parseRdata(type, data), want);
    });
  }
});

Deno.test("parseRdata rejects invalid data with a message naming the field", async (t) => {
  for (const [type, data, want] of invalid) {
    await t.step(`${type} ${data.slice(0, 60)}`, () => {
      assert.throws(() => parseRdata(type, data), (error: unknown) => {
        assert.ok(error instanceof RdataSyntaxError);
        assert.equal(error.name, "RdataSyntaxError");
        assert.match(error.message, want);
        return true;
      });
    });
  }
});

Deno.test("parseRdata covers every record type with valid and invalid rows", () => {
  for (const type of RECORD_TYPES) {
    assert.ok(valid.some(([t]) => t === type), `no valid row for ${type}`);
    assert.ok(invalid.some(([t]) => t === type), `no invalid row for ${type}`);
  }
});

Deno.test("checkRdata returns null or the error message", () => {
  assert.equal(checkRdata("MX", "10 mail.example.com"), null);
  assert.equal(
    checkRdata("MX", "x mail.example.com"),
    'MX preference "x" is not a number 0-65535',
  );
});

Deno.test("typeCode maps mnemonics and TYPEnnn to numbers", async (t) => {
  const cases: [string, number | undefined][] = [
    ["A", 1],
    ["NS", 2],
    ["CNAME", 5],
    ["PTR", 12],
    ["MX", 15],
    ["TXT", 16],
    ["AAAA", 28],
    ["SRV", 33],
    ["NAPTR", 35],
    ["DNAME", 39],
    ["SSHFP", 44],
    ["TLSA", 52],
    ["SVCB", 64],
    ["HTTPS", 65],
    ["CAA", 257],
    ["TYPE0", 0],
    ["TYPE65535", 65535],
    ["TYPE65536", undefined],
    ["TYPE007", undefined],
    ["TYPE", undefined],
    ["a", undefined],
    ["SOA", undefined],
    ["toString", undefined],
  ];
  for (const [type, want] of cases) {
    await t.step(type, () => assert.equal(typeCode(type), want));
  }
});
