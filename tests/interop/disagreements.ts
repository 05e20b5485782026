/**
 * Where NSD 4.6 and Knot 3.2 answer the corpus differently, what each does,
 * and which answer kudurru gives. nsd_knot_test.ts fails when one of these
 * stops being a disagreement (so the list stays true), and
 * kudurru_diff_test.ts compares kudurru with the peer named here.
 *
 * NSD runs with `minimal-responses: yes`: without it NSD also puts the zone's
 * NS RRset in the authority section (and its addresses in additional) of
 * every positive answer, which Knot never does and kudurru will not do.
 */

/** Which peer kudurru matches for one query; "either" accepts both answers. */
export type KudurruChoice = "nsd" | "knot" | "either";

/** One documented difference between the peers. */
export interface KnownDisagreement {
  nsd: string;
  knot: string;
  kudurru: KudurruChoice;
  why: string;
}

const ADDITIONAL_FOR_TARGETS =
  "Additional addresses for in-zone targets save the resolver a round trip (RFC 1035 §3.3.9, RFC 2782, RFC 9460 §4.3)";
const FOLLOW_ACROSS_ZONES =
  "RFC 1034 §4.3.2 step 3a restarts the lookup at step 1 with the new name, which searches every zone served here, not only the current one";

const QCLASS_ANY =
  "QCLASS ANY matches any class (RFC 1035 §3.2.5); IN is the only class served here, so the IN answer is the whole answer, with the SOA a negative answer needs for caching (RFC 2308)";

const TSIG_QUESTION: KnownDisagreement = {
  nsd: "no question section in the answer (QDCOUNT 0)",
  knot: "the question echoed",
  kudurru: "knot",
  why:
    "RFC 8945 §5.3.2 builds the unsigned error from the request; every other answer echoes the question (RFC 1035 §4.1.2), and a client matches answers to its query by it",
};

/** Keyed by corpus query name. */
export const KNOWN_DISAGREEMENTS: Record<string, KnownDisagreement> = {
  "TSIG with an unknown key is NOTAUTH BADKEY": TSIG_QUESTION,
  "TSIG with an unknown key and EDNS": TSIG_QUESTION,
  "TSIG with an unknown key over TCP": TSIG_QUESTION,
  "TSIG ahead of the OPT record is FORMERR": {
    ...TSIG_QUESTION,
    kudurru: "nsd",
    why:
      "RFC 8945 §5.1 drops such a message and answers FORMERR; kudurru answers every message it cannot parse from its header alone, as for the other FORMERR cases of the corpus",
  },
  "apex MX with exchange addresses in additional": {
    nsd: "no additional section (minimal-responses)",
    knot: "A and AAAA of mail.kudurru.test. in additional",
    kudurru: "knot",
    why: ADDITIONAL_FOR_TARGETS,
  },
  "SRV with target addresses in additional": {
    nsd: "no additional section (minimal-responses)",
    knot: "A of the in-zone target sip.kudurru.test. in additional",
    kudurru: "knot",
    why: ADDITIONAL_FOR_TARGETS,
  },
  "SVCB": {
    nsd: "no additional section (minimal-responses)",
    knot: "A of the in-zone target svc-backend.kudurru.test. in additional",
    kudurru: "knot",
    why: ADDITIONAL_FOR_TARGETS,
  },
  "RRset whose records differ in TTL": {
    nsd: "each record with the TTL written for it, 600 and 300",
    knot:
      "every record with the TTL of the last one in the zone file, 300 (a notice: TTL mismatch)",
    kudurru: "knot",
    why:
      "RFC 2181 §5.2: the records of an RRset share one TTL, and a client treats differing TTLs as the lowest; kudurru serves the lowest whatever the order (here the last) and warns the record set (TTLMismatch)",
  },
  "CNAME into the second zone": {
    nsd: "follows the CNAME into other.test. and adds www.other.test. A",
    knot: "answers the CNAME only and stops at the zone boundary",
    kudurru: "nsd",
    why: FOLLOW_ACROSS_ZONES,
  },
  "CNAME from the second zone back": {
    nsd: "follows the CNAME back into kudurru.test. and adds www A",
    knot: "answers the CNAME only",
    kudurru: "nsd",
    why: FOLLOW_ACROSS_ZONES,
  },
  "CNAME to NXDOMAIN in the second zone": {
    nsd: "NXDOMAIN, the CNAME in answer and other.test. SOA in authority",
    knot: "NOERROR with the CNAME only",
    kudurru: "nsd",
    why: FOLLOW_ACROSS_ZONES + "; the final rcode belongs to the last name",
  },
  "DNAME into the second zone": {
    nsd: "DNAME, synthesised CNAME and www.other.test. A",
    knot: "DNAME and synthesised CNAME only",
    kudurru: "nsd",
    why: FOLLOW_ACROSS_ZONES,
  },
  "ANY at the apex over UDP": {
    nsd: "one RRset: the SOA",
    knot: "one RRset: the A",
    kudurru: "either",
    why: "RFC 8482 lets the server pick any one RRset; both do, differently",
  },
  "referral whose in-domain glue does not fit 512 octets": {
    nsd: "TC=0 with the A glue of every name server and no AAAA",
    knot:
      "TC=1 with the A and AAAA glue of the first name servers, as many as fit",
    kudurru: "knot",
    why:
      "RFC 9471 §3: when in-domain glue does not all fit, the server MUST set TC",
  },
  "QCLASS ANY answers the IN data": {
    nsd: "the IN records, AA=0",
    knot: "the IN records, AA=1",
    kudurru: "knot",
    why: QCLASS_ANY,
  },
  "QCLASS ANY for a missing name": {
    nsd: "NXDOMAIN, AA=0, no SOA",
    knot: "NXDOMAIN, AA=1, the SOA in authority",
    kudurru: "knot",
    why: QCLASS_ANY,
  },
  "QCLASS ANY for a missing type": {
    nsd: "NODATA, AA=0, no SOA",
    knot: "NODATA, AA=1, the SOA in authority",
    kudurru: "knot",
    why: QCLASS_ANY,
  },
  "opcode STATUS is NOTIMP": {
    nsd: "NOTIMP with an empty question section",
    knot: "NOTIMP echoing the question",
    kudurru: "knot",
    why: "Echoing the question lets the client match the answer to its query",
  },
  "opcode 3 (unassigned) is NOTIMP": {
    nsd: "NOTIMP with an empty question section",
    knot: "NOTIMP echoing the question",
    kudurru: "knot",
    why: "Echoing the question lets the client match the answer to its query",
  },
};
