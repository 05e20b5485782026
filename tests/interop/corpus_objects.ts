/**
 * The interop test zones as kudurru objects: `kudurru.test.` (every rule a
 * resolver can meet), `other.test.` (the far end of cross-zone CNAMEs and
 * DNAMEs) and `child.kudurru.test.` (a delegated child served by the same
 * server). NSD and Knot load the same objects rendered by zone_file.ts.
 */
import type { DNSZone } from "../../src/api/v1alpha1/dnszone.ts";
import type {
  DNSRecordSet,
  Endpoint,
} from "../../src/api/v1alpha1/dnsrecordset.ts";

/** The main zone; most queries of the corpus land here. */
export const MAIN_ZONE = "kudurru.test.";
export const OTHER_ZONE = "other.test.";
export const CHILD_ZONE = "child.kudurru.test.";

function zone(
  name: string,
  zoneName: string,
  nameservers: string[],
  serial: number,
): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name },
    spec: {
      zoneName,
      type: "primary",
      soa: {
        mname: nameservers[0]!,
        rname: `hostmaster.${zoneName}`,
        refresh: 3600,
        retry: 900,
        expire: 1209600,
        // Lower than defaultTTL, so the negative TTL is the SOA minimum.
        minimum: 120,
      },
      nameservers,
      defaultTTL: 3600,
      policy: {
        queryAccess: "allow",
        zoneTransfer: "deny",
        notify: "none",
        update: "deny",
      },
    },
    status: { serial },
  };
}

function recordSet(
  name: string,
  zoneRef: string,
  endpoints: Endpoint[],
): DNSRecordSet {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: { name, namespace: "dns" },
    spec: { zoneRef: { name: zoneRef }, endpoints },
  };
}

/** An endpoint; `ttl` only when the record overrides the zone default. */
function rr(
  dnsName: string,
  recordType: string,
  targets: string[],
  ttl?: number,
): Endpoint {
  return {
    dnsName,
    recordType,
    targets,
    ...(ttl === undefined ? {} : { recordTTL: ttl }),
  };
}

const M = "kudurru.test";
const HEX32 = "0123456789ABCDEF".repeat(4);
/** 8 strings of 100 octets: > 512 octets on the wire, < 1232. */
const BIG_TXT = Array.from(
  { length: 8 },
  (_, i) => `"${String(i).repeat(100)}"`,
);
/** 14 strings of 100 octets: > 1232 octets on the wire. */
const BIGGER_TXT = Array.from(
  { length: 14 },
  (_, i) => `"${String(i % 10).repeat(100)}"`,
);

export const ZONES: DNSZone[] = [
  zone(
    "kudurru-test",
    MAIN_ZONE,
    ["ns1.kudurru.test.", "ns2.kudurru.test."],
    2024010101,
  ),
  zone("other-test", OTHER_ZONE, ["ns1.kudurru.test.", "ns2.kudurru.test."], 7),
  zone("child-kudurru-test", CHILD_ZONE, ["ns1.child.kudurru.test."], 42),
];

export const RECORD_SETS: DNSRecordSet[] = [
  recordSet("apex", "kudurru-test", [
    rr(M, "A", ["192.0.2.1"]),
    rr(M, "MX", ["10 mail.kudurru.test"]),
    rr(M, "TXT", ["v=spf1 -all"]),
    rr(M, "CAA", ['0 issue "letsencrypt.org"']),
    rr(M, "HTTPS", ["1 . alpn=h2,h3"]),
    rr(`ns1.${M}`, "A", ["192.0.2.53"]),
    rr(`ns1.${M}`, "AAAA", ["2001:db8::53"]),
    rr(`ns2.${M}`, "A", ["192.0.2.54"]),
  ]),
  recordSet("hosts", "kudurru-test", [
    rr(`www.${M}`, "A", ["192.0.2.10", "192.0.2.11"], 300),
    rr(`www.${M}`, "AAAA", ["2001:db8::10"], 300),
    rr(`www.${M}`, "SSHFP", [`4 2 ${HEX32}`]),
    rr(`www.${M}`, "HTTPS", ["1 . alpn=h2"]),
    rr(`_443._tcp.www.${M}`, "TLSA", [`3 1 1 ${HEX32}`]),
    rr(`mail.${M}`, "A", ["192.0.2.25"]),
    rr(`mail.${M}`, "AAAA", ["2001:db8::25"]),
    rr(`sip.${M}`, "A", ["192.0.2.60"]),
    rr(`_sip._tcp.${M}`, "SRV", [
      "0 5 5060 sip.kudurru.test",
      "10 5 5060 sipbackup.other.test",
    ]),
    rr(`naptr.${M}`, "NAPTR", [
      '100 10 "u" "E2U+sip" "!^.*$!sip:info@kudurru.test!" .',
    ]),
    rr(`ptr.${M}`, "PTR", ["www.kudurru.test"]),
    rr(`svc.${M}`, "SVCB", ["1 svc-backend.kudurru.test port=8443 alpn=h2"]),
    rr(`svc-backend.${M}`, "A", ["192.0.2.90"]),
    rr(`private.${M}`, "TYPE65400", ["\\# 4 DEADBEEF"]),
    rr(`big.${M}`, "TXT", BIG_TXT),
    rr(`cbig.${M}`, "CNAME", [`big.${M}`]),
    rr(`bigger.${M}`, "TXT", BIGGER_TXT),
    // One RRset whose records ask for different TTLs, the higher first
    // (RFC 2181 §5.2: served with the lowest; an audit got the first).
    rr(`ttls.${M}`, "A", ["192.0.2.150"], 600),
    rr(`ttls.${M}`, "A", ["192.0.2.151"], 300),
  ]),
  recordSet("aliases", "kudurru-test", [
    rr(`alias.${M}`, "CNAME", [`www.${M}`]),
    rr(`chain1.${M}`, "CNAME", [`chain2.${M}`]),
    rr(`chain2.${M}`, "CNAME", [`www.${M}`]),
    rr(`cross.${M}`, "CNAME", ["www.other.test"]),
    rr(`dangling.${M}`, "CNAME", [`nothing.${M}`]),
    rr(`danglingout.${M}`, "CNAME", ["nothing.other.test"]),
    rr(`loop1.${M}`, "CNAME", [`loop2.${M}`]),
    rr(`loop2.${M}`, "CNAME", [`loop1.${M}`]),
    rr(`old.${M}`, "DNAME", [`new.${M}`]),
    rr(`www.new.${M}`, "A", ["192.0.2.70"]),
    rr(`dn.${M}`, "DNAME", ["other.test"]),
  ]),
  recordSet("wildcards", "kudurru-test", [
    rr(`*.wc.${M}`, "A", ["192.0.2.80"]),
    rr(`*.wc.${M}`, "TXT", ["wildcard"]),
    // Makes b.wc an empty non-terminal, which blocks the wildcard below it.
    rr(`a.b.wc.${M}`, "A", ["192.0.2.81"]),
    rr(`*.wcname.${M}`, "CNAME", [`www.${M}`]),
    // A wildcard below the wildcard *.wc: found through the closest
    // encloser *.wc (RFC 4592 §3.3.1); an audit got NXDOMAIN.
    rr(`*.\\*.wc.${M}`, "TXT", ["star-under-star"]),
    // A star label below the leftmost: `*.mid` exists as an empty
    // non-terminal, an empty wildcard (RFC 4592 §2.2.1).
    rr(`a.\\*.mid.${M}`, "TXT", ["star"]),
    // The wildcard written with an escaped star: the same name on the wire.
    rr(`\\*.esc.${M}`, "A", ["192.0.2.91"]),
  ]),
  recordSet("delegations", "kudurru-test", [
    rr(`sub.${M}`, "NS", [`ns1.sub.${M}`, "ns.other.test"]),
    rr(`sub.${M}`, "TYPE43", [`\\# 36 30390D02${HEX32}`]),
    rr(`ns1.sub.${M}`, "A", ["192.0.2.100"]),
    rr(`ns1.sub.${M}`, "AAAA", ["2001:db8::100"]),
    rr(`child.${M}`, "NS", [`ns1.child.${M}`]),
    rr(`ns1.child.${M}`, "A", ["192.0.2.110"]),
    // 13 in-domain name servers: their 26 glue records overflow 512 octets
    // (RFC 9471: the referral must then set TC).
    rr(
      `bigdel.${M}`,
      "NS",
      Array.from({ length: 13 }, (_, i) => `ns${i}.bigdel.${M}`),
    ),
    ...Array.from({ length: 13 }, (_, i) => [
      rr(`ns${i}.bigdel.${M}`, "A", [`192.0.2.${120 + i}`]),
      rr(`ns${i}.bigdel.${M}`, "AAAA", [`2001:db8::${120 + i}`]),
    ]).flat(),
  ]),
  recordSet("other", "other-test", [
    rr("www.other.test", "A", ["198.51.100.10"]),
    rr("sipbackup.other.test", "A", ["198.51.100.60"]),
    rr("www2.other.test", "CNAME", [`www.${M}`]),
  ]),
  recordSet("child", "child-kudurru-test", [
    rr(`ns1.child.${M}`, "A", ["192.0.2.110"]),
    rr(`www.child.${M}`, "A", ["192.0.2.111"]),
  ]),
];
