/**
 * Table tests for hosts and plain-domain/wildcard lines: one row per syntax
 * rule (README.md), with what is counted as invalid or unsupported.
 */

import { type Row, testRows } from "./test_support.ts";

const BOILERPLATE = [
  "127.0.0.1 localhost",
  "127.0.0.1 localhost.localdomain",
  "127.0.0.1 local",
  "255.255.255.255 broadcasthost",
  "::1 localhost ip6-localhost ip6-loopback",
  "fe80::1%lo0 localhost",
  "fe00::0 ip6-localnet",
  "ff00::0 ip6-mcastprefix",
  "ff02::1 ip6-allnodes",
  "ff02::2 ip6-allrouters",
  "ff02::3 ip6-allhosts",
  "0.0.0.0 0.0.0.0",
].join("\n");

const ROWS: Row[] = [
  // hosts
  {
    why: "0.0.0.0 line",
    format: "hosts",
    body: "0.0.0.0 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "127.0.0.1 line",
    format: "hosts",
    body: "127.0.0.1 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "any 127/8 address blocks",
    format: "hosts",
    body: "127.0.1.1 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: ":: line",
    format: "hosts",
    body: ":: ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "::1 line",
    format: "hosts",
    body: "::1 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "several names per line, tabs",
    format: "hosts",
    body: "0.0.0.0 a.example\tb.example  c.example",
    rules: [
      "exact hosts a.example",
      "exact hosts b.example",
      "exact hosts c.example",
    ],
  },
  {
    why: "trailing # comment",
    format: "hosts",
    body: "0.0.0.0 a.example # tracker\n0.0.0.0 b.example#x",
    rules: ["exact hosts a.example", "exact hosts b.example"],
  },
  {
    why: "localhost boilerplate is ignored, not invalid",
    format: "hosts",
    body: BOILERPLATE,
    rules: [],
  },
  {
    why: "boilerplate mixed with a real name",
    format: "hosts",
    body: "127.0.0.1 localhost ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "other address: a rewrite",
    format: "hosts",
    body: "192.0.2.1 ads.example",
    rules: [],
    unsupported: 1,
  },
  {
    why: "IPv6 rewrite counts once per line",
    format: "hosts",
    body: "2001:db8::1 a.example b.example",
    rules: [],
    unsupported: 1,
  },
  {
    why: "`0 x` is not a hosts line",
    format: "hosts",
    body: "0 ads.example",
    rules: [],
    invalid: 1,
  },
  {
    why: "an address without names",
    format: "hosts",
    body: "0.0.0.0\n127.0.0.1 # x",
    rules: [],
    invalid: 2,
  },
  {
    why: "a bad name among good ones",
    format: "hosts",
    body: "0.0.0.0 a.example bad..name",
    rules: ["exact hosts a.example"],
    invalid: 1,
  },
  {
    why: "names normalised",
    format: "hosts",
    body: "0.0.0.0 ADS.Example.",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "a plain name in a hosts list",
    format: "hosts",
    body: "ads.example",
    rules: ["exact domain ads.example"],
  },
  {
    why: "# Title",
    format: "hosts",
    body: "# Title: My hosts\n0.0.0.0 a.example",
    rules: ["exact hosts a.example"],
    title: "My hosts",
  },

  // plain domains and wildcards
  {
    why: "one name per line",
    format: "domains",
    body: "ads.example\nb.example",
    rules: ["exact domain ads.example", "exact domain b.example"],
  },
  {
    why: "*.x is a suffix rule on x",
    format: "domains",
    body: "*.ads.example",
    rules: ["suffix wildcard ads.example"],
  },
  {
    why: "bare IPv4",
    format: "domains",
    body: "192.0.2.1",
    rules: ["exact domain 192.0.2.1"],
  },
  {
    why:
      "a lone sink address lost its names (it would block localhost answers)",
    format: "domains",
    body: "127.0.0.1\n0.0.0.0\n::1",
    rules: [],
    invalid: 3,
  },
  {
    why: "localhost & co are boilerplate here as in hosts files",
    format: "domains",
    body: "localhost\nip6-localhost\nLOCALHOST\nlocalhost.example",
    rules: ["exact domain localhost.example"],
  },
  {
    why: "a # right after the name starts a comment",
    format: "domains",
    body: "ads.example#tracker\nb.example\t#why\n0.0.0.0 c.example#x",
    rules: [
      "exact domain ads.example",
      "exact domain b.example",
      "exact hosts c.example",
    ],
  },
  {
    why:
      "a cosmetic marker after a name is a browser rule, not a name and a comment",
    format: "domains",
    body: [
      "yahoo.com###LREC",
      "amazon.com##.ad",
      "facebook.com#@#.ad",
      "mail.google.com#$#abort-on-property-read x",
      "google.com#?#div:has(> .ad)",
      "example.org#%#//scriptlet('x')",
      "example.net#@$#.ad { display: none }",
      "example.com#@?#.ad:has(a)",
      "ads.example#tracker",
    ].join("\n"),
    rules: ["exact domain ads.example"],
    unsupported: 8,
  },
  {
    why: "bare IPv6, canonical",
    format: "domains",
    body: "2001:DB8:0::1",
    rules: ["exact domain 2001:db8::1"],
  },
  {
    why: "IDN to punycode",
    format: "domains",
    body: "bücher.example",
    rules: ["exact domain xn--bcher-kva.example"],
  },
  {
    why: "uppercase, trailing dot",
    format: "domains",
    body: "ADS.example.",
    rules: ["exact domain ads.example"],
  },
  {
    why: "inline comment",
    format: "domains",
    body: "ads.example   # why",
    rules: ["exact domain ads.example"],
  },
  {
    why: "CRLF, tabs, trailing whitespace",
    format: "domains",
    body: "\tads.example \r\n*.b.example\t\r\n\r\n",
    rules: ["exact domain ads.example", "suffix wildcard b.example"],
  },
  {
    why: "# and ! comments",
    format: "domains",
    body: "# c\n! c\n#ads.example",
    rules: [],
  },
  {
    why: "garbage",
    format: "domains",
    body: "a..b\nads example\nads.example!\nhttp://x/",
    rules: [],
    invalid: 4,
  },
  {
    why: "a label over 63",
    format: "domains",
    body: `${"a".repeat(64)}.example`,
    rules: [],
    invalid: 1,
  },
  {
    why: "mid-pattern wildcard",
    format: "domains",
    body: "ads.*.example\n*.*.example",
    rules: [],
    unsupported: 2,
  },
  {
    why: "hosts line in a domains list",
    format: "domains",
    body: "0.0.0.0 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "adblock line in a domains list",
    format: "domains",
    body: "||ads.example^",
    rules: ["suffix adblock ads.example"],
  },
  {
    why: "no regexes in a domains list",
    format: "domains",
    body: "/ads/\n@@/ads/",
    rules: [],
    invalid: 2,
  },
];

testRows(ROWS);
