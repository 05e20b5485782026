/**
 * Table rows for the question: allow and block lists, exceptions and
 * `$important`, allow-only, each answer mode per query type, TTLs and a
 * list's own response, EDNS.
 */
import type { BlockResponse } from "../../../blocking/blocking_snapshot.ts";
import {
  ADS,
  type Allowed,
  BOTH,
  listBlock,
  type Row,
  SOA_TAIL,
} from "./table_row.ts";

const customResponse: BlockResponse = {
  mode: "customIP",
  customIPs: ["198.51.100.1", "2001:db8::1"],
  ttl: 60,
};

const FAMILY_GOOD: Allowed = {
  list: "Family allow",
  rule: "||good.ads.example^",
};

export const QUESTION_ROWS: Row[] = [
  // The question against the lists.
  { name: "no lists in the decision", q: "ads.example. A" },
  {
    name: "a block list blocks the name",
    q: "ads.example. A",
    policy: { blockLists: ADS },
    blocked: listBlock("Ads", "||ads.example^", [
      "ads.example. 600 IN A 0.0.0.0",
    ]),
  },
  {
    name: "a suffix rule blocks names below",
    q: "x.y.ADS.example. AAAA",
    policy: { blockLists: ADS },
    blocked: listBlock("Ads", "||ads.example^", [
      "x.y.ADS.example. 600 IN AAAA ::",
    ]),
  },
  {
    name: "an unlisted name passes",
    q: "example.org. A",
    policy: { blockLists: BOTH },
  },
  {
    name: "an @@ exception of the list lets it through",
    q: "ok.ads.example. A",
    policy: { blockLists: ADS },
    allowed: { list: "Ads", rule: "@@||ok.ads.example^" },
  },
  {
    name: "an @@ exception no rule of its list needs allowlists the name",
    q: "www.unbreak.example. A",
    policy: { blockLists: ["dns/ads", "dns/trackers"] },
    allowed: { list: "Ads", rule: "@@||unbreak.example^" },
  },
  {
    name: "a list of exceptions only allowlists its names",
    q: "cloak.site.example. A",
    policy: { blockLists: ["dns/fixes", ...BOTH] },
    allowed: { list: "Fixes", rule: "@@||cloak.site.example^" },
  },
  {
    name: "an exception of one list does not override another list's block",
    q: "metrics.example. A",
    policy: { blockLists: ["dns/fixes", ...BOTH] },
    blocked: listBlock("Trackers", "||metrics.example^", [
      "metrics.example. 600 IN A 0.0.0.0",
    ]),
  },
  {
    name: "an exception in one list does not stop the next list",
    q: "ok.ads.example. A",
    policy: { blockLists: BOTH },
    blocked: listBlock("Trackers", "||ads.example^", [
      "ok.ads.example. 600 IN A 0.0.0.0",
    ]),
  },
  {
    name: "$important beats the list's exception",
    q: "a.tracker.example. A",
    policy: { blockLists: ADS },
    blocked: listBlock("Ads", "||tracker.example^$important", [
      "a.tracker.example. 600 IN A 0.0.0.0",
    ]),
  },
  {
    name: "an exception beats a rule that is not important",
    q: "free.example. A",
    policy: { blockLists: ADS },
    allowed: { list: "Ads", rule: "@@||free.example^" },
  },
  {
    name: "block lists decide in decision order",
    q: "ads.example. A",
    policy: { blockLists: ["dns/trackers", "dns/ads"] },
    blocked: listBlock("Trackers", "||ads.example^", [
      "ads.example. 600 IN A 0.0.0.0",
    ]),
  },
  {
    name: "an allow list beats every block list",
    q: "good.ads.example. A",
    policy: { blockLists: BOTH, allowLists: ["dns/family-allow"] },
    allowed: FAMILY_GOOD,
  },
  {
    name: "a list of mode allow among the block lists allows",
    q: "good.ads.example. A",
    policy: { blockLists: ["dns/family-allow", ...BOTH] },
    allowed: FAMILY_GOOD,
  },
  {
    name: "a block-mode list referenced as allow list allows",
    q: "ref.ads.example. A",
    policy: { blockLists: BOTH, allowLists: ["dns/inline-allow"] },
    allowed: { list: "Inline allow", rule: "ref.ads.example" },
  },
  {
    name: "an @@ line of a block-mode list referenced as allow list allows",
    q: "x.imp.example. A",
    policy: { blockLists: BOTH, allowLists: ["dns/inline-allow"] },
    allowed: { list: "Inline allow", rule: "@@||imp.example^" },
  },
  {
    name: "a list both allowed and blocking only allows",
    q: "metrics.example. A",
    policy: { blockLists: BOTH, allowLists: ["dns/inline-allow"] },
    allowed: { list: "Inline allow", rule: "||metrics.example^" },
  },
  {
    name: "unknown list keys are ignored",
    q: "ads.example. A",
    policy: { blockLists: ["dns/gone", "dns/ads"], allowLists: ["dns/gone2"] },
    blocked: listBlock("Ads", "||ads.example^", [
      "ads.example. 600 IN A 0.0.0.0",
    ]),
  },
  // allowOnly.
  {
    name: "allowOnly filters a name on no allow list",
    q: "example.org. A",
    policy: {
      allowOnly: true,
      policies: ["kids/school", "default/default"],
      allowLists: ["dns/family-allow"],
    },
    blocked: {
      rcode: "NOERROR",
      answer: ["example.org. 600 IN A 0.0.0.0"],
      list: "kids/school",
      rule: "allowOnly",
      ede: [17, "not on an allow list of allow-only policy kids/school"],
    },
  },
  {
    name: "allowOnly answers an allowed name, answer not inspected",
    q: "fine-cdn.example. A",
    policy: {
      allowOnly: true,
      allowLists: ["dns/family-allow"],
      blockLists: ["dns/ips"],
    },
    upstream: ["fine-cdn.example. 300 IN A 192.0.2.66"],
    allowed: { list: "Family allow", rule: "||fine-cdn.example^" },
  },
  {
    name: "an allowed name's local answer is not named",
    q: "good.ads.example. A",
    policy: { blockLists: BOTH, allowLists: ["dns/family-allow"] },
    upstream: ["good.ads.example. 300 IN A 192.0.2.10"],
    status: "local_record",
  },
  // Answer modes x query types.
  ...modeRows(),
  // TTL and response overrides.
  {
    name: "the block TTL is the decision's",
    q: "ads.example. A",
    policy: {
      blockLists: ADS,
      response: { ...customResponse, mode: "zeroIP", ttl: 7 },
    },
    blocked: listBlock("Ads", "||ads.example^", [
      "ads.example. 7 IN A 0.0.0.0",
    ]),
  },
  {
    name: "a list's own response beats the decision's (nxdomain)",
    q: "www.strict.example. A",
    policy: { blockLists: ["dns/strict"], response: customResponse },
    blocked: listBlock("Strict", "||strict.example^", undefined, [
      `www.strict.example. 60 ${SOA_TAIL} 60`,
    ], "NXDOMAIN"),
  },
  {
    name: "a list's own customIPs beat the decision's (A)",
    q: "custom.example. A",
    policy: { blockLists: ["dns/custom"] },
    blocked: listBlock("Custom", "||custom.example^", [
      "custom.example. 600 IN A 192.0.2.99",
      "custom.example. 600 IN A 192.0.2.98",
    ]),
  },
  {
    name: "a list's own customIPs beat the decision's (AAAA)",
    q: "custom.example. AAAA",
    policy: { blockLists: ["dns/custom"], response: customResponse },
    blocked: listBlock("Custom", "||custom.example^", [
      "custom.example. 60 IN AAAA 2001:db8::99",
    ]),
  },
  {
    name: "customIP without an address of the family is NODATA",
    q: "custom4.example. AAAA",
    policy: { blockLists: ["dns/custom-v4"] },
    blocked: listBlock("Custom v4", "||custom4.example^", undefined, [
      `custom4.example. 600 ${SOA_TAIL} 600`,
    ]),
  },
  // EDNS.
  {
    name: "no EDE without EDNS",
    q: "ads.example. A",
    edns: false,
    policy: { blockLists: ADS },
    blocked: {
      ...listBlock("Ads", "||ads.example^", ["ads.example. 600 IN A 0.0.0.0"]),
      ede: null,
    },
  },
];

/** Each answer mode for A, AAAA, HTTPS and TXT. */
function modeRows(): Row[] {
  const rows: Row[] = [];
  const responses: Record<string, BlockResponse> = {
    zeroIP: { mode: "zeroIP", customIPs: [], ttl: 300 },
    customIP: { ...customResponse, ttl: 300 },
    nxdomain: { mode: "nxdomain", customIPs: [], ttl: 300 },
    refused: { mode: "refused", customIPs: [], ttl: 300 },
  };
  const soa = [`ads.example. 300 ${SOA_TAIL} 300`];
  const expected: Record<
    string,
    Record<string, [string, (string[] | undefined)?, (string[] | undefined)?]>
  > = {
    zeroIP: {
      A: ["NOERROR", ["ads.example. 300 IN A 0.0.0.0"]],
      AAAA: ["NOERROR", ["ads.example. 300 IN AAAA ::"]],
      HTTPS: ["NOERROR", undefined, soa],
      TXT: ["NOERROR", undefined, soa],
    },
    customIP: {
      A: ["NOERROR", ["ads.example. 300 IN A 198.51.100.1"]],
      AAAA: ["NOERROR", ["ads.example. 300 IN AAAA 2001:db8::1"]],
      HTTPS: ["NOERROR", undefined, soa],
      TXT: ["NOERROR", undefined, soa],
    },
    nxdomain: Object.fromEntries(
      ["A", "AAAA", "HTTPS", "TXT"].map((
        t,
      ) => [t, ["NXDOMAIN", undefined, soa]]),
    ),
    refused: Object.fromEntries(
      ["A", "AAAA", "HTTPS", "TXT"].map((t) => [t, ["REFUSED"]]),
    ),
  };
  for (const [mode, byType] of Object.entries(expected)) {
    for (const [type, [rcode, answer, authority]] of Object.entries(byType)) {
      rows.push({
        name: `${mode} answers ${type}`,
        q: `ads.example. ${type}`,
        policy: { blockLists: ADS, response: responses[mode]! },
        blocked: listBlock("Ads", "||ads.example^", answer, authority, rcode),
      });
    }
  }
  return rows;
}
