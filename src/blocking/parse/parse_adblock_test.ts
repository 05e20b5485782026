/**
 * Table tests for adblock and regex lines: one row per syntax rule
 * (README.md), with what is counted as invalid or unsupported.
 */

import { type Row, testRows } from "./test_support.ts";

const ROWS: Row[] = [
  // adblock
  {
    why: "||x^",
    format: "adblock",
    body: "||ads.example^",
    rules: ["suffix adblock ads.example"],
  },
  {
    why: "||x",
    format: "adblock",
    body: "||ads.example",
    rules: ["suffix adblock ads.example"],
  },
  {
    why: "||x^|",
    format: "adblock",
    body: "||ads.example^|",
    rules: ["suffix adblock ads.example"],
  },
  {
    why: "uppercase",
    format: "adblock",
    body: "||ADS.Example^",
    rules: ["suffix adblock ads.example"],
  },
  {
    why: "@@ exception",
    format: "adblock",
    body: "@@||ads.example^",
    rules: ["suffix adblock ads.example @@"],
  },
  {
    why: "$important",
    format: "adblock",
    body: "||ads.example^$important",
    rules: ["suffix adblock ads.example $important"],
  },
  {
    why: "@@ with $important",
    format: "adblock",
    body: "@@||ads.example^$important",
    rules: ["suffix adblock ads.example @@ $important"],
  },
  {
    why: "IP in ||…^ is exact",
    format: "adblock",
    body: "||192.0.2.1^",
    rules: ["exact adblock 192.0.2.1"],
  },
  {
    why: "comments and header ignored",
    format: "adblock",
    body: "[Adblock Plus 2.0]\n! comment\n# comment\n!#if x",
    rules: [],
  },
  {
    why: "! Title: extracted",
    format: "adblock",
    body: "! Title: Ads list \n! Title: second",
    rules: [],
    title: "Ads list",
  },
  ...[
    "third-party",
    "dnstype=AAAA",
    "client=192.0.2.1",
    "denyallow=a.example",
    "dnsrewrite=192.0.2.2",
    "ctag=tv",
    "important,third-party",
  ].map((modifier): Row => ({
    why: `$${modifier} is unsupported`,
    format: "adblock",
    body: `||ads.example^$${modifier}`,
    rules: [],
    unsupported: 1,
  })),
  {
    why:
      "an exception narrowed by $dnstype, $client or $ctag applies to every query",
    format: "adblock",
    body: [
      "@@||a.example^$dnstype=A",
      "@@||b.example^$client=192.168.1.2",
      "@@||c.example^$ctag=device_tv,important",
      "@@||d.example^$dnstype=~AAAA|A,client=~'Frank'",
      "@@/^e[0-9]\\./$dnstype=AAAA",
      "@@f.example$ctag=tv",
      // Still dropped: a block rule, another modifier, $denyallow (its names
      // must stay blocked), $badfilter (it would switch off a plain @@ too).
      "||g.example^$dnstype=A",
      "@@||h.example^$dnstype=A,third-party",
      "@@||i.example^$denyallow=x.i.example",
      "@@||j.example^$dnstype=A,badfilter",
    ].join("\n"),
    rules: [
      "suffix adblock a.example @@",
      "suffix adblock b.example @@",
      "suffix adblock c.example @@ $important",
      "suffix adblock d.example @@",
      "regex regex ^e[0-9]\\. @@",
      "exact domain f.example @@",
    ],
    broadened: 6,
    unsupported: 4,
  },
  {
    why: "$badfilter switches the same rule off",
    format: "adblock",
    body:
      "||ads.example^$badfilter\n@@||ok.example^$important,badfilter\n/re/$badfilter\n||x.example^$badfilter,third-party",
    rules: [
      "off suffix adblock ads.example",
      "off suffix adblock ok.example @@ $important",
      "off regex regex re",
    ],
    unsupported: 1,
  },
  {
    why: "empty modifier",
    format: "adblock",
    body: "||ads.example^$",
    rules: [],
    invalid: 1,
  },
  {
    why: "element hiding and scriptlets",
    format: "adblock",
    body:
      "example.com##.ad\n##.banner\nexample.com#@#.ad\nexample.com#$#body{}\n#%#//scriptlet('x')\nexample.com$$script",
    rules: [],
    unsupported: 6,
  },
  {
    why: "URL-path rules",
    format: "adblock",
    body: "||ads.example^/path\n||ads.example/\n/ads/banner.js",
    rules: [],
    unsupported: 3,
  },
  {
    why: "mid-pattern wildcards",
    format: "adblock",
    body: "||ads*.example^\nads*.example\n||*.example^",
    rules: [],
    unsupported: 3,
  },
  {
    why: "| anchors at the start of the name: an exact rule",
    format: "adblock",
    body: [
      "|ads.example^",
      "|Track.example|",
      "|stats.example^|",
      "|pixel.example",
      "@@|ok.ads.example^",
      "|192.0.2.1^",
      "|ads.example^$important",
    ].join("\n"),
    rules: [
      "exact domain ads.example",
      "exact domain track.example",
      "exact domain stats.example",
      "exact domain pixel.example",
      "exact domain ok.ads.example @@",
      "exact domain 192.0.2.1",
      "exact domain ads.example $important",
    ],
  },
  {
    why: "|http:// anchors",
    format: "adblock",
    body: "|http://ads.example^\n|https://ads.example/x\n|ads.example/path^",
    rules: [],
    unsupported: 3,
  },
  {
    why: "a port",
    format: "adblock",
    body: "||ads.example:8080^",
    rules: [],
    unsupported: 1,
  },
  {
    why: "a bare hostname is exact",
    format: "adblock",
    body: "ads.example",
    rules: ["exact domain ads.example"],
  },
  {
    why: "exception on a bare hostname",
    format: "adblock",
    body: "@@ads.example",
    rules: ["exact domain ads.example @@"],
  },
  {
    why: "*.x in an adblock list",
    format: "adblock",
    body: "*.ads.example",
    rules: ["suffix wildcard ads.example"],
  },
  {
    why: "hosts line in an adblock list",
    format: "adblock",
    body: "0.0.0.0 ads.example",
    rules: ["exact hosts ads.example"],
  },
  {
    why: "/re/",
    format: "adblock",
    body: "/ads[0-9]+\\.example/",
    rules: ["regex regex ads[0-9]+\\.example"],
  },
  {
    why: "@@/re/",
    format: "adblock",
    body: "@@/^ads\\./",
    rules: ["regex regex ^ads\\. @@"],
  },
  {
    why: "/re/$important",
    format: "adblock",
    body: "/ads$/$important",
    rules: ["regex regex ads$ $important"],
  },
  {
    why: "a bad regex",
    format: "adblock",
    body: "/ads(/",
    rules: [],
    invalid: 1,
  },
  {
    why: "a bad name",
    format: "adblock",
    body: "||bad..name^\n@@",
    rules: [],
    invalid: 2,
  },

  // regex lists
  {
    why: "expression without slashes",
    format: "regex",
    body: "^ads[0-9]*\\.",
    rules: ["regex regex ^ads[0-9]*\\."],
  },
  {
    why: "expression with slashes",
    format: "regex",
    body: "/(\\.|^)ads\\.example$/",
    rules: ["regex regex (\\.|^)ads\\.example$"],
  },
  {
    why: "# comments",
    format: "regex",
    body: "# comment\n! comment\n\n",
    rules: [],
  },
  {
    why: "does not compile",
    format: "regex",
    body: "ads(\n[z-a]",
    rules: [],
    invalid: 2,
  },
  {
    why: "flags are not supported",
    format: "regex",
    body: "/ads/i",
    rules: [],
    invalid: 1,
  },
  {
    why: "Pi-hole extensions",
    format: "regex",
    body: "^ads;querytype=AAAA\n^x;invert",
    rules: [],
    unsupported: 2,
  },
  {
    why: "POSIX classes, as Pi-hole's regex lists write them",
    format: "regex",
    body: "^ad[[:digit:]]+\\.example$\n^x[[:nope:]]",
    rules: ["regex regex ^ad[0-9]+\\.example$"],
    invalid: 1,
  },
];

testRows(ROWS);
