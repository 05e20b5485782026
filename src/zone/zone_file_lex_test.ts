import assert from "node:assert/strict";
import { lexZoneFile, ZoneLexer } from "./zone_file_lex.ts";

function words(text: string) {
  return [...lexZoneFile(text)].map((e) => ({
    line: e.line,
    blank: e.blankOwner,
    words: e.tokens.map((t) => t.text),
    ...(e.error !== undefined && { error: e.error }),
  }));
}

Deno.test("zone file lexer cuts lines into tokens and drops comments and blank lines", () => {
  const text = [
    "; a comment line",
    "",
    "www  300 IN A 192.0.2.1 ; trailing",
    "\tIN AAAA 2001:db8::1",
    "   ; only a comment, indented",
  ].join("\n");
  assert.deepEqual(words(text), [
    { line: 3, blank: false, words: ["www", "300", "IN", "A", "192.0.2.1"] },
    { line: 4, blank: true, words: ["IN", "AAAA", "2001:db8::1"] },
  ]);
});

Deno.test("zone file lexer joins lines inside parentheses and keeps the start line", () => {
  const text = [
    "@ IN SOA ns1 hostmaster (",
    "   2024010101 ; serial",
    "   3600 900",
    "   1209600 300 )",
    "next A 192.0.2.2",
  ].join("\r\n");
  const entries = words(text);
  assert.deepEqual(entries[0], {
    line: 1,
    blank: false,
    words: [
      "@",
      "IN",
      "SOA",
      "ns1",
      "hostmaster",
      "2024010101",
      "3600",
      "900",
      "1209600",
      "300",
    ],
  });
  assert.deepEqual(entries[1], {
    line: 5,
    blank: false,
    words: ["next", "A", "192.0.2.2"],
  });
});

Deno.test("zone file lexer keeps quoted strings whole: ; ( ) and blanks inside, escapes kept", () => {
  const [entry] = [
    ...lexZoneFile(
      'txt TXT "v=spf1; -all" "a (b)" "say \\"hi\\"" semi\\;colon',
    ),
  ];
  assert.deepEqual(entry!.tokens, [
    { text: "txt", quoted: false },
    { text: "TXT", quoted: false },
    { text: '"v=spf1; -all"', quoted: true },
    { text: '"a (b)"', quoted: true },
    { text: '"say \\"hi\\""', quoted: true },
    { text: "semi\\;colon", quoted: false },
  ]);
});

Deno.test("zone file lexer keeps a quoted value inside a word (SVCB params)", () => {
  const [entry] = [...lexZoneFile('s SVCB 1 . alpn="h2 h3;x" port=443')];
  assert.deepEqual(entry!.tokens.map((t) => t.text), [
    "s",
    "SVCB",
    "1",
    ".",
    'alpn="h2 h3;x"',
    "port=443",
  ]);
});

Deno.test("zone file lexer reports an unclosed quote or parenthesis and goes on", () => {
  const text = [
    'bad TXT "no end',
    "ok A 192.0.2.1",
    "stray A 192.0.2.2 )",
    "open A ( 192.0.2.3",
    "after A 192.0.2.4",
  ].join("\n");
  const entries = words(text);
  assert.equal(entries[0]!.line, 1);
  assert.match(entries[0]!.error!, /quoted string is not closed/);
  assert.deepEqual(entries[1], {
    line: 2,
    blank: false,
    words: ["ok", "A", "192.0.2.1"],
  });
  assert.match(entries[2]!.error!, /closes no/);
  assert.equal(entries[3]!.line, 4);
  assert.match(entries[3]!.error!, /opened on line 4 is never closed/);
  assert.equal(entries.length, 4, "the open ( swallows the rest of the file");
});

Deno.test("zone file lexer entry text is the source, trimmed and cut", () => {
  const [entry] = [...lexZoneFile(`x TXT "${"a".repeat(400)}"`)];
  assert.equal(entry!.text.length, 256);
  assert.ok(entry!.text.endsWith("…"));
  const [multi] = [...lexZoneFile("@ SOA a b (\n 1 2 3 4 5 )")];
  assert.equal(multi!.text, "@ SOA a b ( 1 2 3 4 5 )");
});

Deno.test("zone file lexer fed in pieces gives the entries of the whole text", async () => {
  // PowerDNS's test zone (read in place): SOA in parentheses across lines,
  // blank owners, comments, quoted TXT.
  const real = await Deno.readTextFile(
    new URL(
      "../../../shared/data/imports/bind/pdns/zones/test.com",
      import.meta.url,
    ),
  );
  const text = real +
    '@ IN TXT "a ( b" ( "c;d"\n  "e" )\nbad ( 1\nx\tIN A 192.0.2.1';
  const whole = [...lexZoneFile(text)];
  assert.ok(whole.some((e) => e.tokens.length > 8), "a multi-line entry");
  for (const size of [1, 7, 64, text.length]) {
    const lexer = new ZoneLexer();
    const pieced = [];
    for (let at = 0; at < text.length; at += size) {
      pieced.push(...lexer.feed(text.slice(at, at + size)));
    }
    pieced.push(...lexer.feed("", true));
    assert.deepEqual(pieced, whole, `pieces of ${size}`);
  }
});
