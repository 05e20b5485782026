/**
 * Which queries the cache looks at, and the key their answers are kept
 * under.
 */
import { OPCODE, TYPE } from "../../dns/wire/mod.ts";
import type { Request } from "../../pipeline/mod.ts";

/**
 * True for a well-formed QUERY with one question of a type that has an
 * answer to keep (zone transfers are streams, not answers).
 */
export function isCacheableQuery(req: Request): boolean {
  const { query } = req;
  if (req.malformed !== undefined || query.question === undefined) return false;
  if (query.opcode !== OPCODE.QUERY || query.qr) return false;
  const type = query.question.type;
  return type !== TYPE.AXFR && type !== TYPE.IXFR && type !== TYPE.OPT;
}

/**
 * The key of `req`'s answer: lowercased name, type, class, the DO bit (an
 * answer with RRSIGs is not one without) and the CD bit (RFC 4035 §4.7:
 * data fetched without checking must not answer a query that wants it
 * checked), plus the ECS scope when ECS is forwarded (RFC 7871 §7.3).
 * EDNS presence and the size limit are not in the key: a hit writes the
 * client's own OPT record and truncates for the client's limit.
 */
export function cacheKey(req: Request, ecsScope?: string): string {
  const question = req.query.question!;
  const bits = (req.query.edns?.dnssecOk ? "D" : "-") +
    (req.query.cd ? "C" : "-");
  const key = `${req.qname} ${question.type} ${question.class} ${bits}`;
  return ecsScope === undefined || ecsScope === "" ? key : `${key} ${ecsScope}`;
}
