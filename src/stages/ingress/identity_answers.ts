/**
 * The answers ingress gives about the server itself: CHAOS-class identity
 * queries (id.server, hostname.bind, version.bind, version.server; RFC 4892)
 * and the health check health.kudurru.internal.
 */
import { CLASS, RCODE, TYPE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import type { RRSet } from "../../dns/rrset.ts";

/**
 * The health-check name (docs/design.md#health-and-lameduck); dnsdist and
 * probes ask it for TXT.
 */
export const HEALTH_NAME = "health.kudurru.internal.";

const encoder = new TextEncoder();

/** A character-string: at most 255 octets (RFC 1035 §3.3). */
function characterString(text: string): Uint8Array {
  return encoder.encode(text).slice(0, 255);
}

function txt(name: string, rrclass: number, texts: string[]): RRSet {
  return {
    name,
    type: TYPE.TXT,
    ttl: 0, // identity and health answers describe this instant and this node
    class: rrclass,
    rdata: [{ type: "TXT", strings: texts.map(characterString) }],
  };
}

/** What each CHAOS name answers, given the node. */
const CHAOS_TEXT: Record<string, (req: Request) => string> = {
  "id.server.": (req) => req.node.name,
  "hostname.bind.": (req) => req.node.name,
  "version.bind.": (req) => `kudurru ${req.node.version}`,
  "version.server.": (req) => `kudurru ${req.node.version}`,
};

/**
 * Answers a CHAOS-class query: TXT for the four identity names (AA set,
 * class CH), NODATA for their other types, REFUSED for any other name
 * (we serve no CHAOS zone).
 */
export function chaosAnswer(req: Request): Response {
  const text = CHAOS_TEXT[req.qname];
  if (text === undefined) {
    return answer(req, "ingress", "refused", RCODE.REFUSED);
  }
  // The names hold TXT only; NSD and Knot refuse other types. ANY gets
  // the TXT, as from NSD.
  const question = req.query.question;
  if (question?.type !== TYPE.TXT && question?.type !== TYPE.ANY) {
    return answer(req, "ingress", "refused", RCODE.REFUSED);
  }
  // AA stays clear: we hold no CHAOS zone, and NSD and Knot answer so too.
  return answer(req, "ingress", "chaos", RCODE.NOERROR, {
    answer: [txt(question.name, CLASS.CH, [text(req)])],
  });
}

/**
 * Answers the health check: TXT "<node name>" "<snapshot version>", never
 * logged. Before the first snapshot, and in lameduck once the server is
 * stopping, it answers SERVFAIL, so a load balancer keeps traffic away
 * from a node that cannot answer yet or soon will not.
 */
export function healthAnswer(req: Request): Response {
  const unlogged = true;
  if (req.snapshot === undefined || req.lameduck) {
    return {
      ...answer(req, "ingress", "health", RCODE.SERVFAIL),
      unlogged,
    };
  }
  const question = req.query.question!;
  const records = question.type === TYPE.TXT
    ? [txt(question.name, CLASS.IN, [
      req.node.name,
      String(req.snapshot.version),
    ])]
    : [];
  return {
    ...answer(req, "ingress", "health", RCODE.NOERROR, {
      aa: true,
      answer: records,
    }),
    unlogged,
  };
}
