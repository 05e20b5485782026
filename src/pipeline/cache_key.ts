/**
 * Which queries the cache looks at, and the key their answers are kept
 * under.
 */
import { OPCODE, TYPE } from "../dns/wire/constants.ts";
import type { Request } from "./request.ts";

/**
 * True for a well-formed QUERY with one question of a type that has an
 * answer to keep (zone transfers are streams, not answers).
 */
export function isCacheableQuery(req: Request): boolean {
  const { query } = req;
  if (req.malformed !== undefined || query.question === undefined) return false;
  if (query.opcode !== OPCODE.QUERY || query.qr) return false;
  // RD=0: the upstream stage refuses it; a hit would tell the client what
  // others asked (cache snooping).
  if (!query.rd) return false;
  const type = query.question.type;
  return type !== TYPE.AXFR && type !== TYPE.IXFR && type !== TYPE.OPT;
}

/**
 * The key of `req`'s answer: lowercased name, type, class, the DO bit (an
 * answer with RRSIGs is not one without) and the CD bit (RFC 4035 §4.7:
 * data fetched without checking must not answer a query that wants it
 * checked), plus the scope the cache stage was given for `req` (the
 * client's upstream group, the ECS option sent: RFC 7871 §7.3).
 * EDNS presence and the size limit are not in the key: a hit writes the
 * client's own OPT record and truncates for the client's limit.
 *
 * Hits do not build it: they find the entry by name, variant and scope
 * (answer_cache.ts). It names in-flight questions and dumped entries.
 */
export function cacheKey(req: Request, scope?: string): string {
  const question = req.query.question!;
  const bits = (req.query.edns?.dnssecOk ? "D" : "-") +
    (req.query.cd ? "C" : "-");
  const key = `${req.qname} ${question.type} ${question.class} ${bits}`;
  return scope === undefined || scope === "" ? key : `${key} ${scope}`;
}

/** The question name `key` was made for (a name escapes its spaces: `\032`). */
export function questionNameOf(key: string): string {
  const space = key.indexOf(" ");
  return space === -1 ? key : key.slice(0, space);
}

/** The key's type, class, DO and CD as one number, for finding hits without a key. */
export function cacheVariant(req: Request): number {
  const question = req.query.question!;
  return variantOf(
    question.type,
    question.class,
    req.query.edns?.dnssecOk === true,
    req.query.cd,
  );
}

/**
 * The variant and scope ("" for none) `key` was made from, for an entry
 * read back from a dump; undefined when `key` is not a key of `name`.
 */
export function parseCacheKey(
  key: string,
  name: string,
): { variant: number; scope: string } | undefined {
  if (!key.startsWith(name + " ")) return undefined;
  const parts = key.slice(name.length + 1).split(" ");
  if (parts.length < 3 || parts.length > 4) return undefined;
  const [type, qclass, bits, scope = ""] = parts as [
    string,
    string,
    string,
    string?,
  ];
  if (!isUint16(type) || !isUint16(qclass) || !/^[D-][C-]$/.test(bits)) {
    return undefined;
  }
  const variant = variantOf(
    Number(type),
    Number(qclass),
    bits[0] === "D",
    bits[1] === "C",
  );
  return { variant, scope };
}

function variantOf(
  type: number,
  qclass: number,
  dnssecOk: boolean,
  cd: boolean,
): number {
  return (type * 0x10000 + qclass) * 4 + (dnssecOk ? 2 : 0) + (cd ? 1 : 0);
}

function isUint16(text: string): boolean {
  return /^\d{1,5}$/.test(text) && Number(text) <= 0xffff;
}
