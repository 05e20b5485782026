/**
 * Transfer messages built by hand (names uncompressed, SOA with root MNAME
 * and RNAME), for the client's tests and to warm its reader up before the
 * first measured pull, so that no server's figure carries the client's JIT.
 */
import { TYPE } from "../../src/dns/wire/constants.ts";

/** One answer record: an SOA with its serial, or an A. */
export type SyntheticRecord =
  | { name: string; type: "SOA"; serial: number }
  | { name: string; type: "A"; address: string };

function name(text: string): number[] {
  const out: number[] = [];
  for (const label of text.split(".").filter((l) => l !== "")) {
    out.push(label.length, ...new TextEncoder().encode(label));
  }
  out.push(0);
  return out;
}

/** A response carrying `records`, with `question` (AXFR) when given. */
export function syntheticMessage(
  records: SyntheticRecord[],
  opts: { question?: string; rcode?: number } = {},
): Uint8Array {
  const bytes: number[] = [
    0x12,
    0x34,
    0x84,
    opts.rcode ?? 0,
    0,
    opts.question === undefined ? 0 : 1,
    records.length >> 8,
    records.length & 0xff,
    0,
    0,
    0,
    0,
  ];
  if (opts.question !== undefined) {
    bytes.push(...name(opts.question), 0, TYPE.AXFR, 0, 1);
  }
  for (const r of records) {
    bytes.push(...name(r.name));
    if (r.type === "SOA") {
      const s = r.serial;
      bytes.push(0, TYPE.SOA, 0, 1, 0, 0, 1, 44, 0, 22, 0, 0);
      bytes.push(s >>> 24, (s >> 16) & 0xff, (s >> 8) & 0xff, s & 0xff);
      bytes.push(...new Array(16).fill(0));
    } else {
      bytes.push(0, TYPE.A, 0, 1, 0, 0, 1, 44, 0, 4);
      bytes.push(...r.address.split(".").map(Number));
    }
  }
  return new Uint8Array(bytes);
}

/** Messages of an AXFR of `count` A records, `perMessage` records each. */
export function syntheticAxfr(
  zone: string,
  serial: number,
  count: number,
  perMessage = 500,
): Uint8Array[] {
  const all: SyntheticRecord[] = [{ name: zone, type: "SOA", serial }];
  for (let i = 0; i < count; i++) {
    all.push({
      name: `h${i}.${zone}`,
      type: "A",
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    });
  }
  all.push({ name: zone, type: "SOA", serial });
  const messages: Uint8Array[] = [];
  for (let at = 0; at < all.length; at += perMessage) {
    messages.push(
      syntheticMessage(
        all.slice(at, at + perMessage),
        at === 0 ? { question: zone } : {},
      ),
    );
  }
  return messages;
}

/** The TCP stream of `messages`: each behind its 2-octet length. */
export function framed(messages: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(messages.reduce((n, m) => n + 2 + m.length, 0));
  let at = 0;
  for (const m of messages) {
    out[at] = m.length >> 8;
    out[at + 1] = m.length & 0xff;
    out.set(m, at + 2);
    at += 2 + m.length;
  }
  return out;
}
