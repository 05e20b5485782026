/**
 * IP addresses from their text form to wire octets, for A, AAAA and the
 * SVCB address hints. The text comes from the validated presentation parser,
 * so errors here mean a caller built rdata by hand.
 */
import type { MessageWriter } from "./message_writer.ts";

/** Writes a dotted-quad IPv4 address as 4 octets. */
export function writeIpv4(w: MessageWriter, text: string): void {
  const octets = ipv4Octets(text);
  if (octets === undefined) throw badAddress("IPv4", text);
  for (const octet of octets) w.u8(octet);
}

/** Writes an IPv6 address (RFC 4291 §2.2 text, IPv4 tail allowed) as 16 octets. */
export function writeIpv6(w: MessageWriter, text: string): void {
  const groups = ipv6Groups(text);
  if (groups === undefined) throw badAddress("IPv6", text);
  for (const group of groups) w.u16(group);
}

function badAddress(family: string, text: string): TypeError {
  return new TypeError(`Cannot encode ${family} address "${text}"`);
}

/** Parses by hand: A records are on the encode path of every answer. */
function ipv4Octets(text: string): number[] | undefined {
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (code >= 0x30 && code <= 0x39 && digits < 3) {
      value = value * 10 + code - 0x30;
      digits++;
    } else if (code === 0x2e && digits > 0 && value <= 255) {
      octets.push(value);
      value = digits = 0;
    } else {
      return undefined;
    }
  }
  return octets.length === 4 ? octets : undefined;
}

function ipv6Groups(text: string): number[] | undefined {
  const gap = text.indexOf("::");
  if (gap !== -1 && text.indexOf("::", gap + 1) !== -1) return undefined;
  if (gap === -1) {
    const groups = groupsOf(text, true);
    return groups?.length === 8 ? groups : undefined;
  }
  const head = groupsOf(text.slice(0, gap), false);
  const tail = groupsOf(text.slice(gap + 2), true);
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The 16-bit groups of a colon-separated run; `""` has none. */
function groupsOf(run: string, ipv4TailAllowed: boolean): number[] | undefined {
  if (run === "") return [];
  const pieces = run.split(":");
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (ipv4TailAllowed && i === pieces.length - 1 && piece.includes(".")) {
      const octets = ipv4Octets(piece);
      if (octets === undefined) return undefined;
      groups.push(
        (octets[0]! << 8) | octets[1]!,
        (octets[2]! << 8) | octets[3]!,
      );
    } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}
