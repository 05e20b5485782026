/**
 * Inspects the answer section of an encoded message without decoding it:
 * the header counts, the question skipped, then each record's type and
 * RDLENGTH; only CNAME targets, A/AAAA addresses and the target and address
 * hints of SVCB/HTTPS records are rendered to text and judged.
 *
 * The walk is bounded by the message length (every step moves forward) and
 * never throws: octets that do not parse end the walk with "not blocked",
 * since a garbage answer is no evidence of a blocked name.
 *
 * The first block ends the walk; until one comes, the first item an allow
 * list or an exception let through is kept, for the query log.
 */
import { ipv4Text, ipv6Text } from "../../dns/wire/address_text.ts";
import { TYPE } from "../../dns/wire/constants.ts";
import { readName } from "../../dns/wire/read_name.ts";
import { judgeAnswerItem, type ListHit } from "./list_checks.ts";
import type { ResolvedPolicy } from "./policy_lists.ts";

const HEADER_OCTETS = 12;
/** Type, class, TTL and RDLENGTH after an owner name. */
const RR_FIXED_OCTETS = 10;
/** SvcParamKeys of the address hints (RFC 9460 §14.3.2). */
const IPV4HINT = 4;
const IPV6HINT = 6;

/**
 * The first block among the answer records of `wire`; without one, the
 * first allow; undefined when no list matched an item.
 */
export function inspectAnswerWire(
  wire: Uint8Array,
  policy: ResolvedPolicy,
): ListHit | undefined {
  if (wire.length < HEADER_OCTETS) return undefined;
  const ancount = (wire[6]! << 8) | wire[7]!;
  if (ancount === 0) return undefined;
  const qdcount = (wire[4]! << 8) | wire[5]!;
  let pos = HEADER_OCTETS;
  for (let i = 0; i < qdcount; i++) {
    pos = skipName(wire, pos);
    if (pos < 0) return undefined;
    pos += 4;
  }
  let allowed: ListHit | undefined;
  for (let i = 0; i < ancount; i++) {
    pos = skipName(wire, pos);
    if (pos < 0 || pos + RR_FIXED_OCTETS > wire.length) return allowed;
    const type = (wire[pos]! << 8) | wire[pos + 1]!;
    const rdlength = (wire[pos + 8]! << 8) | wire[pos + 9]!;
    const rdata = pos + RR_FIXED_OCTETS;
    pos = rdata + rdlength;
    if (pos > wire.length) return allowed;
    const hit = inspectRecord(wire, type, rdata, pos, policy);
    if (hit !== undefined) {
      if (!hit.allows) return hit;
      allowed ??= hit;
    }
  }
  return allowed;
}

function inspectRecord(
  wire: Uint8Array,
  type: number,
  start: number,
  end: number,
  policy: ResolvedPolicy,
): ListHit | undefined {
  const length = end - start;
  switch (type) {
    case TYPE.A:
      return length === 4
        ? judgeAnswerItem(policy, "A", ipv4Text(wire, start))
        : undefined;
    case TYPE.AAAA:
      return length === 16
        ? judgeAnswerItem(policy, "AAAA", ipv6Text(wire, start))
        : undefined;
    case TYPE.CNAME: {
      const target = nameAt(wire, start, end);
      return target === undefined
        ? undefined
        : judgeAnswerItem(policy, "CNAME", target);
    }
    case TYPE.SVCB:
    case TYPE.HTTPS:
      return inspectServiceBinding(wire, type, start, end, policy);
    default:
      return undefined;
  }
}

/** SVCB/HTTPS (RFC 9460 §2.2): priority, target, then key-length-value params. */
function inspectServiceBinding(
  wire: Uint8Array,
  type: number,
  start: number,
  end: number,
  policy: ResolvedPolicy,
): ListHit | undefined {
  const label = type === TYPE.HTTPS ? "HTTPS" : "SVCB";
  const targetAt = start + 2;
  const target = nameAt(wire, targetAt, end);
  if (target === undefined) return undefined;
  let allowed: ListHit | undefined;
  // "." is the owner itself (ServiceMode) or "no service" (AliasMode).
  if (target !== ".") {
    const hit = judgeAnswerItem(policy, `${label} target`, target);
    if (hit !== undefined) {
      if (!hit.allows) return hit;
      allowed = hit;
    }
  }
  // SVCB targets are never compressed (RFC 9460 §2.2), so they end in place.
  let pos = skipName(wire, targetAt);
  while (pos >= 0 && pos + 4 <= end) {
    const key = (wire[pos]! << 8) | wire[pos + 1]!;
    const length = (wire[pos + 2]! << 8) | wire[pos + 3]!;
    const value = pos + 4;
    pos = value + length;
    if (pos > end) return allowed;
    if (key === IPV4HINT && length % 4 === 0) {
      for (let at = value; at < pos; at += 4) {
        const hit = judgeAnswerItem(
          policy,
          `${label} ipv4hint`,
          ipv4Text(wire, at),
        );
        if (hit !== undefined) {
          if (!hit.allows) return hit;
          allowed ??= hit;
        }
      }
    } else if (key === IPV6HINT && length % 16 === 0) {
      for (let at = value; at < pos; at += 16) {
        const hit = judgeAnswerItem(
          policy,
          `${label} ipv6hint`,
          ipv6Text(wire, at),
        );
        if (hit !== undefined) {
          if (!hit.allows) return hit;
          allowed ??= hit;
        }
      }
    }
  }
  return allowed;
}

/**
 * The lowercase presentation name at `at` (pointers followed, with
 * readName's bounds), or undefined when it is not a valid name or starts
 * outside the record.
 */
function nameAt(
  wire: Uint8Array,
  at: number,
  end: number,
): string | undefined {
  if (at >= end) return undefined;
  try {
    return readName(wire, at).name.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The offset after the name at `pos` (a pointer ends it), or -1 when the
 * name runs off the message or uses a label type that does not exist.
 */
function skipName(wire: Uint8Array, pos: number): number {
  for (;;) {
    if (pos >= wire.length) return -1;
    const len = wire[pos]!;
    if (len === 0) return pos + 1;
    if ((len & 0xc0) === 0xc0) return pos + 2 <= wire.length ? pos + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    pos += 1 + len;
  }
}
