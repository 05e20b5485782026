/**
 * Browser filter lists (EasyList and the like) load safely: format "auto"
 * reads them as adblock, their element-hiding rules block no site, and the
 * few DNS rules they hold still block. The list below is built from lines
 * typical of EasyList's files (not a copy of it); the real, DNS-converted
 * EasyList is read from ../shared/data/blocklists.
 */

import assert from "node:assert/strict";
import { compileRules } from "../matcher/compiler.ts";
import { openCompiledList } from "../matcher/open.ts";
import type { ListFormat, ListMatcher, RuleInput } from "../types.ts";
import { decodeListBody } from "./detect.ts";
import { parseList } from "./parse.ts";

const HEADER = [
  "[Adblock Plus 2.0]",
  "! Version: 202411301200",
  "! Title: EasyList",
  "! Last modified: 30 Nov 2024 12:00 UTC",
  "! Expires: 4 days (update frequency)",
  "! Homepage: https://easylist.to/",
  "!",
  "! *** easylist:easylist/easylist_general_block.txt ***",
];

/**
 * easylist_general_block.txt, which comes first: URL fragments, many of
 * them name-like. Within the lines "auto" samples they far outnumber the
 * adblock-looking ones.
 */
const GENERAL_BLOCK = [
  "&ad_box_",
  "&ad_channel=",
  "&ad_type=",
  "&adspace=",
  "&adurl=",
  "-ad-banner-",
  "-ad-banner.",
  "-ad-big.",
  "-ad-bottom-",
  "-ad-manager/$~stylesheet",
  "-ad-sidebar.$image",
  "-ad-util-",
  "-ad.jpg?",
  "-ad/main.",
  "-ad1.jpg",
  "-adhelper.",
  "-advert-placeholder.",
  "-web-advert-",
  ".adserver.",
  ".ar/ads/",
  ".com/ads/",
  ".net/ad/",
  "/ad-choices-",
  "/ad-choices.",
  "/ad_banner.",
  "/adbanner.",
  "/adchoices.",
  "/ads/banner.",
  "/ads/*/banner",
  "/adserver/",
  "/adverts/",
  "_ad_banner_",
  "_adbanner_",
  "_ads_",
  "_advertisement.",
  "?ad_id=",
  "?adunit=",
  "=adslot&",
];

/** easylist_specific_hide.txt and friends: element hiding, scriptlets, exceptions. */
const SPECIFIC_HIDE = [
  "! *** easylist:easylist/easylist_specific_hide.txt ***",
  "yahoo.com###LREC",
  "yahoo.com##.ad-slot",
  "amazon.com##.ad",
  "amazon.com,amazon.de##[data-ad-id]",
  "mail.google.com###ad-banner",
  "google.com#?#div:-abp-has(> span:-abp-contains(Sponsored))",
  "facebook.com#@#.ad-unit",
  "facebook.com#$#abort-on-property-read adsbygoogle",
  "www.facebook.com#%#//scriptlet('set-constant', 'ads', 'false')",
  "amazon.com#@$#.ad { display: block !important; }",
  "yahoo.com#@?#.ad:has(a)",
  "##.ad-banner",
  "###ad-box",
  "@@||amazon.com^$elemhide",
  "@@||google.com/recaptcha/$script",
];

/** easylist_adservers.txt: the part a DNS server can apply. */
const ADSERVERS = [
  "! *** easylist:easylist/easylist_adservers.txt ***",
  "||adserver.example^",
  "||banners.example.net^",
  "||tracker.example.org^$third-party",
];

const SITES = [
  "yahoo.com",
  "www.yahoo.com",
  "amazon.com",
  "amazon.de",
  "google.com",
  "mail.google.com",
  "facebook.com",
  "www.facebook.com",
];

function load(body: string, format: ListFormat = "auto") {
  const rules: RuleInput[] = [];
  const stats = parseList(body, format, { rule: (r) => rules.push(r) });
  const matcher = openCompiledList(
    compileRules({ key: "test/easylist", name: "easylist", mode: "block" }, [
      ...rules,
    ]),
  );
  return { stats, matcher };
}

function blocked(matcher: ListMatcher, names: string[]): string[] {
  return names.filter((n) => matcher.check(`${n}.`)?.outcome === "matched");
}

Deno.test("browser list: an EasyList-like list sniffs as adblock and blocks no site it hides elements on", async (t) => {
  const body = [...HEADER, ...GENERAL_BLOCK, ...SPECIFIC_HIDE, ...ADSERVERS]
    .join("\n");
  const { stats, matcher } = load(body);
  assert.equal(stats.format, "adblock");
  assert.equal(stats.title, "EasyList");
  assert.deepEqual(blocked(matcher, SITES), []);
  assert.deepEqual(
    blocked(matcher, ["adserver.example", "x.banners.example.net"]),
    ["adserver.example", "x.banners.example.net"],
  );
  await t.step("so does the real, DNS-converted EasyList", async () => {
    const bytes = await Deno.readFile(
      new URL(
        "../../../../shared/data/blocklists/3p_easylist.adblock.txt",
        import.meta.url,
      ),
    );
    const real = load(decodeListBody(bytes));
    assert.equal(real.stats.format, "adblock");
    assert.deepEqual(blocked(real.matcher, SITES), []);
    assert.deepEqual(blocked(real.matcher, ["ads.yahoo.com"]), [
      "ads.yahoo.com",
    ]);
  });
});

Deno.test("browser list: without its header, fragments and cosmetic rules still make it adblock", () => {
  const { stats, matcher } = load(
    [...GENERAL_BLOCK, ...SPECIFIC_HIDE.slice(1)].join("\n"),
  );
  assert.equal(stats.format, "adblock");
  assert.deepEqual(blocked(matcher, SITES), []);
  // Fragments alone, no cosmetic rule to decide: they vote adblock.
  assert.equal(load(GENERAL_BLOCK.join("\n")).stats.format, "adblock");
});

Deno.test("browser list: declared a domains list, its cosmetic rules block no site", () => {
  const { stats, matcher } = load(SPECIFIC_HIDE.join("\n"), "domains");
  assert.deepEqual(blocked(matcher, SITES), []);
  assert.equal(stats.format, "domains");
  assert.equal(stats.rules, 0);
  assert.equal(stats.unsupported, 13, stats.examples.join(" | "));
});
