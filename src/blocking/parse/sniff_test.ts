/** Format "auto": the sniffer's vote on synthetic bodies. */

import assert from "node:assert/strict";
import type { ListFormat } from "../types.ts";
import { sniffFormat } from "./sniff.ts";
import { classifyLine } from "./sniff.ts";

const LINES: Array<[line: string, format: Exclude<ListFormat, "auto">]> = [
  ["||ads.example^", "adblock"],
  ["@@||ads.example^", "adblock"],
  ["|http://ads.example^", "adblock"],
  ["[Adblock Plus 2.0]", "adblock"],
  ["example.com##.ad", "adblock"],
  ["ads.example^", "adblock"],
  ["ads.example$third-party", "adblock"],
  ["0.0.0.0 ads.example", "hosts"],
  ["127.0.0.1\tads.example", "hosts"],
  [":: ads.example", "hosts"],
  ["192.0.2.1 rewritten.example", "hosts"],
  ["/ads[0-9]\\.example/", "adblock"], // AdGuard's regex rule
  ["(\\.|^)ads\\.example$", "regex"],
  ["^ad[sx]?[0-9]*\\.", "regex"],
  ["ads.example", "domains"],
  ["*.ads.example", "domains"],
  ["bücher.example", "domains"],
  ["192.0.2.1", "domains"],
  ["ads.example # comment", "domains"],
  // EasyList's URL fragments: read as names, they were rules.
  ["&ad_type=", "adblock"],
  ["-ad-banner-", "adblock"],
  ["/ad_banner.", "adblock"],
  [".adserver.", "adblock"],
  ["_ads_", "adblock"],
  ["-ad.jpg?", "adblock"],
  ["/ads/*/banner", "adblock"],
  ["ads*.example", "adblock"],
];

for (const [line, format] of LINES) {
  Deno.test(`classifyLine: ${JSON.stringify(line)} looks like ${format}`, () => {
    assert.equal(classifyLine(line), format);
  });
}

const BODIES: Array<
  [why: string, body: string, format: Exclude<ListFormat, "auto">]
> = [
  ["empty", "", "domains"],
  ["comments only", "# a\n# b\n", "domains"],
  ["! comments vote adblock", "! Title: x\n! more\n", "adblock"],
  [
    "majority hosts with a few plain names",
    "0.0.0.0 a.example\n0.0.0.0 b.example\nc.example\n",
    "hosts",
  ],
  [
    "majority domains with one hosts line",
    "a.example\nb.example\n0.0.0.0 c.example\n",
    "domains",
  ],
  [
    "a tie goes to the more specific syntax",
    "a.example\n||b.example^\n",
    "adblock",
  ],
  ["CRLF", "||a.example^\r\n||b.example^\r\n", "adblock"],
  // Read as a regex list, `||example.com^` matched every name.
  [
    "more /re/ lines than || lines: still adblock",
    "/^ad[0-9]+\\./\n/^tracker[0-9]*\\./\n||example.com^\n",
    "adblock",
  ],
  [
    "a /re/ line and a plain name: adblock (its parser reads both)",
    "/^ad[0-9]+\\./\nexample.com\n",
    "adblock",
  ],
  [
    "brackets in a trailing comment are no regex",
    "ads.example  # ads (via CNAME)\ntrack.example # [tracker]\n",
    "domains",
  ],
  ["a regex list", "# regexes\n^ads?\\.\n(\\.|^)tracker\\.example$\n", "regex"],
  [
    "only the first 200 rule lines vote",
    "a.example\n".repeat(200) + "||b.example^\n".repeat(1000),
    "domains",
  ],
];

/** Lines typical of EasyList's general block and specific hide files, no header. */
const BROWSER_LINES = [
  "&ad_type=",
  "-ad-banner-",
  "/ad_banner.",
  "-ad-manager/$~stylesheet",
  ".com/ads/",
  "_ads_",
];

const DECIDED: Array<[why: string, body: string]> = [
  [
    "an [Adblock Plus 2.0] header",
    "[Adblock Plus 2.0]\n" + "a.example\n".repeat(50),
  ],
  ["a [uBlock Origin] header", "[uBlock Origin]\n" + "a.example\n".repeat(50)],
  ["an [AdGuard] header", "[AdGuard]\n" + "a.example\n".repeat(50)],
  ["yahoo.com###LREC", "a.example\n".repeat(50) + "yahoo.com###LREC\n"],
  ...["##", "#@#", "#$#", "#?#", "#%#", "#@$#", "#@?#"].map((
    marker,
  ): [string, string] => [
    `example.com${marker}.ad`,
    "a.example\n".repeat(50) + `example.com${marker}.ad\n`,
  ]),
  [
    "URL fragments outnumber names",
    BROWSER_LINES.join("\n") + "\nads.example\nads2.example\n",
  ],
];

for (const [why, body] of DECIDED) {
  Deno.test(`sniffFormat: ${why} makes a list adblock`, () => {
    assert.equal(sniffFormat(body), "adblock");
  });
}

Deno.test("sniffFormat: a `##.ad` line decides adblock, `##` comment banners of a hosts file do not", () => {
  const names = "a.example\n".repeat(50);
  assert.equal(sniffFormat(names + "##.ad-banner\n"), "adblock");
  assert.equal(sniffFormat(names + "#@#.ad-banner\n"), "adblock");
  const banners = "## StevenBlack\n### section ###\n##########\n## [x]\n";
  assert.equal(sniffFormat(banners + "0.0.0.0 a.example\n"), "hosts");
  assert.equal(sniffFormat(banners + names), "domains");
});

for (const [why, body, format] of BODIES) {
  Deno.test(`sniffFormat: ${why}`, () => {
    assert.equal(sniffFormat(body), format);
  });
}
