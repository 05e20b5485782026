/**
 * Table rows for what the blocking stage reads in answers: CNAME targets,
 * addresses and SVCB/HTTPS hints, carried as `wire` or as `message`, and the
 * statuses whose answers are never inspected.
 */
import { BOTH, listBlock, type Row, SOA_TAIL } from "./table_row.ts";

/** CNAME targets and addresses in the answer, carried as `carrier`. */
export function answerRows(carrier: "wire" | "message"): Row[] {
  const ips = { blockLists: ["dns/ips"] };
  const zero = (q: string) => [`${q} 600 IN A 0.0.0.0`];
  return [
    {
      name: `${carrier}: a blocked CNAME target blocks the answer`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      upstream: [
        "www.shop.example. 300 IN CNAME shop.cname-tracker.example.",
        "shop.cname-tracker.example. 300 IN A 198.51.100.7",
      ],
      blocked: listBlock(
        "Bad addresses",
        "CNAME shop.cname-tracker.example.: ||cname-tracker.example^",
        zero("www.shop.example."),
      ),
    },
    {
      name: `${carrier}: CNAME targets are compared in lowercase`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      upstream: ["www.shop.example. 300 IN CNAME Shop.CNAME-Tracker.Example."],
      blocked: listBlock(
        "Bad addresses",
        "CNAME shop.cname-tracker.example.: ||cname-tracker.example^",
        zero("www.shop.example."),
      ),
    },
    {
      name: `${carrier}: a blocked A address blocks the answer`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      upstream: [
        "www.shop.example. 300 IN A 198.51.100.7",
        "www.shop.example. 300 IN A 192.0.2.66",
      ],
      blocked: listBlock(
        "Bad addresses",
        "A 192.0.2.66: 192.0.2.66",
        zero("www.shop.example."),
      ),
    },
    {
      name:
        `${carrier}: a blocked AAAA address blocks the answer (canonical text)`,
      q: "www.shop.example. AAAA",
      policy: ips,
      carrier,
      upstream: ["www.shop.example. 300 IN AAAA 2001:0DB8:0:0:0:0:0:0066"],
      blocked: listBlock(
        "Bad addresses",
        "AAAA 2001:db8::66: 2001:db8::66",
        ["www.shop.example. 600 IN AAAA ::"],
      ),
    },
    {
      name: `${carrier}: the list's exception applies to CNAME targets`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      upstream: ["www.shop.example. 300 IN CNAME a.ok.cname-tracker.example."],
      allowed: {
        list: "Bad addresses",
        rule:
          "CNAME a.ok.cname-tracker.example.: @@||ok.cname-tracker.example^",
      },
    },
    {
      name: `${carrier}: an excepted item does not stop a later block`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      upstream: [
        "www.shop.example. 300 IN CNAME a.ok.cname-tracker.example.",
        "a.ok.cname-tracker.example. 300 IN A 192.0.2.66",
      ],
      blocked: listBlock(
        "Bad addresses",
        "A 192.0.2.66: 192.0.2.66",
        zero("www.shop.example."),
      ),
    },
    {
      name:
        `${carrier}: a question allowlisted by an exceptions-only list is not inspected (CNAME cloaking)`,
      q: "cloak.site.example. A",
      policy: { blockLists: ["dns/fixes", "dns/ips"] },
      carrier,
      upstream: [
        "cloak.site.example. 300 IN CNAME shop.cname-tracker.example.",
        "shop.cname-tracker.example. 300 IN A 192.0.2.66",
      ],
      allowed: { list: "Fixes", rule: "@@||cloak.site.example^" },
    },
    {
      name: `${carrier}: an allow list lets a blocked CNAME target through`,
      q: "www.shop.example. A",
      policy: { blockLists: BOTH, allowLists: ["dns/family-allow"] },
      carrier,
      upstream: ["www.shop.example. 300 IN CNAME www.good.ads.example."],
      allowed: {
        list: "Family allow",
        rule: "CNAME www.good.ads.example.: ||good.ads.example^",
      },
    },
    {
      name:
        `${carrier}: a question allowlisted by an @@ rule is not inspected, whichever list has the target`,
      q: "www.ok.ads.example. A",
      policy: { blockLists: ["dns/ads", "dns/ips"] },
      carrier,
      upstream: [
        "www.ok.ads.example. 300 IN CNAME shop.cname-tracker.example.",
        "shop.cname-tracker.example. 300 IN A 192.0.2.66",
      ],
      allowed: { list: "Ads", rule: "@@||ok.ads.example^" },
    },
    {
      name: `${carrier}: an allow list allows a CNAME target`,
      q: "www.shop.example. A",
      policy: {
        ...ips,
        blockLists: ["dns/trackers"],
        allowLists: ["dns/family-allow"],
      },
      carrier,
      upstream: ["www.shop.example. 300 IN CNAME x.fine-cdn.example."],
    },
    {
      name: `${carrier}: an allow list allows an address`,
      q: "www.shop.example. A",
      policy: { blockLists: ["dns/ips"], allowLists: ["dns/family-allow"] },
      carrier,
      upstream: ["www.shop.example. 300 IN A 192.0.2.77"],
    },
    {
      name: `${carrier}: a clean answer passes untouched`,
      q: "www.shop.example. A",
      policy: { blockLists: ["dns/ips", ...BOTH] },
      carrier,
      upstream: [
        "www.shop.example. 300 IN CNAME cdn.example.net.",
        "cdn.example.net. 300 IN A 198.51.100.7",
      ],
    },
    {
      name: `${carrier}: a cached answer is inspected`,
      q: "www.shop.example. A",
      policy: ips,
      carrier,
      status: "cached",
      upstream: ["www.shop.example. 300 IN A 192.0.2.66"],
      blocked: listBlock(
        "Bad addresses",
        "A 192.0.2.66: 192.0.2.66",
        zero("www.shop.example."),
      ),
    },
    {
      name:
        `${carrier}: a stale answer is inspected, the second list's hit counts`,
      q: "www.shop.example. A",
      policy: { blockLists: ["dns/ads", "dns/trackers"] },
      carrier,
      status: "cached_stale",
      upstream: ["www.shop.example. 300 IN CNAME x.cdn-track.example."],
      blocked: listBlock(
        "Trackers",
        "CNAME x.cdn-track.example.: ||cdn-track.example^",
        zero("www.shop.example."),
      ),
    },
    {
      name: `${carrier}: an SVCB/HTTPS hint blocks the answer`,
      q: "www.shop.example. HTTPS",
      policy: ips,
      carrier,
      upstream: [
        'www.shop.example. 300 IN HTTPS 1 . alpn="h2" ipv4hint=198.51.100.7,192.0.2.66',
      ],
      blocked: listBlock(
        "Bad addresses",
        "HTTPS ipv4hint 192.0.2.66: 192.0.2.66",
        undefined,
        [`www.shop.example. 600 ${SOA_TAIL} 600`],
      ),
    },
    {
      name: `${carrier}: an HTTPS alias target blocks the answer`,
      q: "www.shop.example. HTTPS",
      policy: ips,
      carrier,
      upstream: ["www.shop.example. 300 IN HTTPS 0 svc.cname-tracker.example."],
      blocked: listBlock(
        "Bad addresses",
        "HTTPS target svc.cname-tracker.example.: ||cname-tracker.example^",
        undefined,
        [`www.shop.example. 600 ${SOA_TAIL} 600`],
      ),
    },
  ];
}

/** Answers of these statuses are never inspected. */
export const NOT_INSPECTED_ROWS: Row[] = [
  {
    name: "authoritative answers are not inspected",
    q: "www.example.org. A",
    policy: { blockLists: ["dns/ips"] },
    upstream: ["www.example.org. 300 IN A 192.0.2.66"],
    status: "authoritative",
  },
  {
    name: "local answers are not inspected",
    q: "www.example.org. A",
    policy: { blockLists: ["dns/ips"] },
    upstream: ["www.example.org. 300 IN A 192.0.2.66"],
    status: "local_record",
  },
];
