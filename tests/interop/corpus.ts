/**
 * The interop corpus: the test zones (as kudurru objects and as zone files)
 * and the queries every server answers. Each query names the rule it tests.
 */
import type { QueryOptions } from "../../src/testing/dns_client.ts";
import type { ZoneText } from "./peers.ts";
import { RECORD_SETS, ZONES } from "./corpus_objects.ts";
import { renderZoneFile } from "./zone_file.ts";

export {
  CHILD_ZONE,
  MAIN_ZONE,
  OTHER_ZONE,
  RECORD_SETS,
  ZONES,
} from "./corpus_objects.ts";
export { renderZoneFile } from "./zone_file.ts";

/** One query of the corpus. */
export interface CorpusQuery {
  /** Unique; the known-disagreement lists refer to it. */
  name: string;
  qname: string;
  qtype: string;
  opts?: QueryOptions;
}

/** The corpus zones as zone files, for NSD and Knot. */
export function corpusZoneFiles(): ZoneText[] {
  return ZONES.map((zone) => ({
    name: zone.spec!.zoneName,
    text: renderZoneFile(zone, RECORD_SETS),
  }));
}

const M = "kudurru.test.";
const EDNS = { edns: true } as const;
const TCP = { tcp: true } as const;
/** See QueryOptions.tsig: the TSIG record's Original ID is 0x1234. */
const SIGNED = { tsig: "last", id: 0x1234 } as const;

function q(
  name: string,
  qname: string,
  qtype: string,
  opts?: QueryOptions,
): CorpusQuery {
  return { name, qname, qtype, ...(opts ? { opts } : {}) };
}

/** Every query, grouped by the rule it exercises. */
export const CORPUS: CorpusQuery[] = [
  // Exact matches, every record type, additional data.
  q("apex SOA", M, "SOA"),
  q("apex NS with glue in additional", M, "NS"),
  q("apex A", M, "A"),
  q("apex MX with exchange addresses in additional", M, "MX"),
  q("apex TXT", M, "TXT"),
  q("apex CAA", M, "CAA"),
  q("apex HTTPS", M, "HTTPS"),
  q("apex CNAME is NODATA", M, "CNAME"),
  q("apex DNAME is NODATA", M, "DNAME"),
  q("apex DS is NODATA", M, "DS"),
  q("www A RRset of two", `www.${M}`, "A"),
  q("www AAAA", `www.${M}`, "AAAA"),
  q("www SSHFP", `www.${M}`, "SSHFP"),
  q("www HTTPS", `www.${M}`, "HTTPS"),
  q("TLSA", `_443._tcp.www.${M}`, "TLSA"),
  q("SRV with target addresses in additional", `_sip._tcp.${M}`, "SRV"),
  q("NAPTR", `naptr.${M}`, "NAPTR"),
  q("PTR", `ptr.${M}`, "PTR"),
  q("SVCB", `svc.${M}`, "SVCB"),
  q("unknown type TYPE65400", `private.${M}`, "TYPE65400"),
  q("nameserver A", `ns1.${M}`, "A"),
  q("nameserver AAAA", `ns1.${M}`, "AAAA"),
  q("RRset whose records differ in TTL", `ttls.${M}`, "A"),
  // NODATA and NXDOMAIN, with the SOA minimum as negative TTL.
  q("NODATA for a missing type", `www.${M}`, "MX"),
  q("NODATA TXT", `mail.${M}`, "TXT"),
  q("NODATA SOA below the apex", `www.${M}`, "SOA"),
  q("NXDOMAIN", `nope.${M}`, "A"),
  q("NXDOMAIN two labels deep", `deep.nope.${M}`, "A"),
  q("NXDOMAIN over TCP", `nope.${M}`, "TXT", TCP),
  q("NXDOMAIN with EDNS", `nope.${M}`, "A", EDNS),
  // Wildcards.
  q("wildcard A", `x.wc.${M}`, "A"),
  q("wildcard TXT", `x.wc.${M}`, "TXT"),
  q("wildcard matches several labels", `x.y.wc.${M}`, "A"),
  q("wildcard NODATA", `x.wc.${M}`, "MX"),
  q("wildcard parent is an empty non-terminal", `wc.${M}`, "A"),
  q("literal wildcard name", `*.wc.${M}`, "A"),
  q("wildcard below a wildcard", `q.*.wc.${M}`, "TXT"),
  q("wildcard below a wildcard, other type", `q.*.wc.${M}`, "A"),
  q("empty non-terminal is NODATA", `b.wc.${M}`, "A"),
  q("empty non-terminal blocks the wildcard", `x.b.wc.${M}`, "A"),
  q("exact name beside the wildcard", `a.b.wc.${M}`, "A"),
  q("wildcard CNAME followed in zone", `x.wcname.${M}`, "A"),
  q("star label below the leftmost: empty wildcard", `x.mid.${M}`, "A"),
  q("star label: two labels under the empty wildcard", `y.x.mid.${M}`, "A"),
  q("star label: the empty wildcard itself", `*.mid.${M}`, "TXT"),
  q("wildcard owner written with an escaped star", `x.esc.${M}`, "A"),
  // CNAME.
  q("CNAME followed in zone", `alias.${M}`, "A"),
  q("CNAME followed for AAAA", `alias.${M}`, "AAAA"),
  q("CNAME to a name without the type", `alias.${M}`, "MX"),
  q("qtype CNAME returns only the CNAME", `alias.${M}`, "CNAME"),
  q("CNAME chain in zone", `chain1.${M}`, "A"),
  q("CNAME into the second zone", `cross.${M}`, "A"),
  q("CNAME from the second zone back", "www2.other.test.", "A"),
  q("CNAME to NXDOMAIN in zone", `dangling.${M}`, "A"),
  q("CNAME to NXDOMAIN in the second zone", `danglingout.${M}`, "A"),
  q("CNAME loop", `loop1.${M}`, "A"),
  // DNAME.
  q("DNAME synthesis followed in zone", `www.old.${M}`, "A"),
  q("DNAME synthesis to NXDOMAIN", `a.b.c.old.${M}`, "A"),
  q("qtype DNAME at its owner", `old.${M}`, "DNAME"),
  q("DNAME owner has no A", `old.${M}`, "A"),
  q("DNAME into the second zone", `www.dn.${M}`, "A"),
  // Found by a fuzz run: YXDOMAIN (a "*" label read as an invalid name) and
  // a CNAME query chased past the synthesised CNAME.
  q("DNAME synthesis of a * label", `*.old.${M}`, "A"),
  q("qtype CNAME below a DNAME", `www.old.${M}`, "CNAME"),
  // Delegations.
  q("referral with glue", `www.sub.${M}`, "A"),
  q("referral for NS at the cut", `sub.${M}`, "NS"),
  q("referral for A at the cut", `sub.${M}`, "A"),
  q("DS at the cut answered by the parent", `sub.${M}`, "DS"),
  q("referral deep below the cut", `deep.www.sub.${M}`, "AAAA"),
  q("glue name is below the cut", `ns1.sub.${M}`, "A"),
  q(
    "referral whose in-domain glue does not fit 512 octets",
    `www.bigdel.${M}`,
    "A",
  ),
  q("referral with all its glue over TCP", `www.bigdel.${M}`, "A", TCP),
  q("delegated child served here", `www.child.${M}`, "A"),
  q("child SOA", `child.${M}`, "SOA"),
  q("child NS", `child.${M}`, "NS"),
  q("DS for a served child", `child.${M}`, "DS"),
  // ANY.
  q("ANY at the apex over UDP", M, "ANY"),
  q("ANY at www over UDP", `www.${M}`, "ANY"),
  q("ANY at www over TCP", `www.${M}`, "ANY", TCP),
  // Case.
  q("mixed-case qname", `WwW.KuDuRRu.TeSt.`, "A"),
  q("mixed-case NXDOMAIN", `NoPe.KUDURRU.test.`, "A"),
  q("mixed-case wildcard", `X.WC.kudurru.TEST.`, "A"),
  // The second zone.
  q("second zone A", "www.other.test.", "A"),
  q("second zone SOA", "other.test.", "SOA"),
  // Names outside every zone.
  q("name in no zone is REFUSED", "www.example.net.", "A"),
  q("root SOA is REFUSED", ".", "SOA"),
  q("parent of the zones is REFUSED", "test.", "SOA"),
  // Transports and EDNS.
  q("TCP", `www.${M}`, "A", TCP),
  q("EDNS", `www.${M}`, "A", EDNS),
  q("EDNS with DO", `www.${M}`, "A", { edns: { udpSize: 4096, do: true } }),
  q("large RRset truncates over UDP without EDNS", `big.${M}`, "TXT"),
  q("large RRset fits with EDNS 1232", `big.${M}`, "TXT", EDNS),
  // NSD and Knot keep the whole RRsets that fit (the CNAME), with TC.
  q("CNAME to a large RRset truncates after the CNAME", `cbig.${M}`, "TXT"),
  q("large RRset over TCP", `big.${M}`, "TXT", TCP),
  q("EDNS 4096 gets at most 1232 octets", `bigger.${M}`, "TXT", {
    edns: { udpSize: 4096, do: false },
  }),
  q("qtype OPT", `www.${M}`, "TYPE41"),
  q("IPv6 loopback", `www.${M}`, "A", { address: "::1" }),
  // TSIG (RFC 8945) with a key no server knows: NOTAUTH, BADKEY, unsigned;
  // a TSIG record that is not the last one: FORMERR. The message ID is the
  // TSIG's Original ID, as a real client sends it (NSD echoes the field,
  // Knot the message ID).
  q("TSIG with an unknown key is NOTAUTH BADKEY", `www.${M}`, "A", {
    ...SIGNED,
  }),
  q("TSIG with an unknown key and EDNS", `www.${M}`, "A", {
    ...EDNS,
    ...SIGNED,
  }),
  q("TSIG with an unknown key over TCP", `www.${M}`, "A", {
    ...TCP,
    ...SIGNED,
  }),
  q("TSIG ahead of the OPT record is FORMERR", `www.${M}`, "A", {
    ...EDNS,
    ...SIGNED,
    tsig: "first",
  }),
  q("RD clear", `www.${M}`, "A", { rd: false }),
  // Opcodes and classes.
  q("opcode STATUS is NOTIMP", `www.${M}`, "A", { opcode: 2 }),
  q("opcode 3 (unassigned) is NOTIMP", `www.${M}`, "A", { opcode: 3 }),
  q("CHAOS version.bind", "version.bind.", "TXT", { class: "CH" }),
  q("CHAOS id.server", "id.server.", "TXT", { class: "CH" }),
  q("CHAOS hostname.bind", "hostname.bind.", "TXT", { class: "CH" }),
  q("CHAOS query for a zone name", M, "SOA", { class: "CH" }),
  q("CHAOS id.server for type A is REFUSED", "id.server.", "A", {
    class: "CH",
  }),
  q("QCLASS ANY answers the IN data", `www.${M}`, "A", { class: "ANY" }),
  q("QCLASS ANY for a missing name", `nope.${M}`, "A", { class: "ANY" }),
  q("QCLASS ANY for a missing type", `www.${M}`, "MX", { class: "ANY" }),
];
