/**
 * Whom a PROXYv2 header (proxy_v2.ts) is believed from: the peers of
 * `listeners.proxyProtocolFrom`, and with `listeners.proxyProtocolSecretFile`
 * only when the header carries the shared secret as TLV 0xE0 (the first
 * type of the range reserved for applications, proxy-protocol.txt §2.2.8).
 * A header says who the client is; believed from anyone, it would let any
 * sender pick the source address that ACLs, rate limits and the query log
 * see (§5: accept it "only from a number of known sources").
 *
 * Headers are optional: bytes without the v2 signature belong to their
 * transport peer, whoever it is, so one listener serves dnsdist and direct
 * clients. §2 wants a receiver configured for headers, not guessing; the
 * guess here gives nothing away: a sender without a header is only ever
 * taken for itself. A header is then:
 *
 * - from a peer not listed: dropped (`proxyUntrusted`);
 * - from a listed peer: it must parse (else `proxyMalformed`) and, with a
 *   secret, a PROXY header must carry it (else `proxyUnauthenticated`),
 *   AF_UNSPEC and AF_UNIX ones too, which then keep the peer's own address;
 *   a PROXY header for TCP or UDP over IPv4 or IPv6 names the client. A
 *   LOCAL header from a listed peer is taken without the secret: it keeps
 *   the peer's address, exactly what no header gives, and dnsdist sends its
 *   health checks with one and no TLV.
 *
 * Without a secret, config load (src/config/schema_listeners.ts) allows
 * only exact /32 and /128 entries; the constructor checks it again.
 *
 * Datagrams and streams: a datagram holds its whole header or is refused;
 * the first bytes of a connection may be a header's start, and the answer
 * is then how many octets to wait for (`incomplete`).
 */
import ipaddr from "ipaddr.js";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import {
  hasProxyV2Signature,
  parseProxyV2,
  PROXY_V2_SIGNATURE,
  type ProxyV2Header,
} from "./proxy_v2.ts";

/** The TLV type that carries the shared secret (dnsdist: a proxy protocol value). */
export const PROXY_SECRET_TLV = 0xe0;

/** Shortest secret taken: 256 bits, beyond guessing one datagram at a time. */
export const PROXY_SECRET_MIN_LENGTH = 32;

/**
 * What a ProxyTrust is built from: plain data, so that it crosses
 * `postMessage` to a listener Worker and is built again there.
 */
export interface ProxyTrustInit {
  /** Addresses and CIDR prefixes, as `listeners.proxyProtocolFrom`. */
  from: string[];
  /** The TLV 0xE0 value required (readProxySecret), when configured. */
  secret?: Uint8Array;
}

/** The SocketCounters field a dropped header counts in. */
export type ProxyDropCounter =
  | "proxyUntrusted"
  | "proxyUnauthenticated"
  | "proxyMalformed";

export type ProxyDecision =
  /** No header: the peer is the client. */
  | { kind: "direct" }
  /**
   * A header believed: the client is `address` and `port` (the peer's own
   * for LOCAL, AF_UNSPEC and AF_UNIX headers), and the DNS bytes start at
   * `headerLength`.
   */
  | {
    kind: "proxied";
    address: string;
    port: number;
    headerLength: number;
    header: ProxyV2Header;
  }
  /** Not believed: drop the datagram or close the connection, and count it. */
  | { kind: "drop"; counter: ProxyDropCounter; reason: string }
  /** Streams only: the bytes so far start a header; wait for `needed` in all. */
  | { kind: "incomplete"; needed: number };

const DIRECT: ProxyDecision = { kind: "direct" };
const UNTRUSTED: ProxyDecision = {
  kind: "drop",
  counter: "proxyUntrusted",
  reason: "a PROXYv2 header from a peer not in listeners.proxyProtocolFrom",
};
const UNAUTHENTICATED: ProxyDecision = {
  kind: "drop",
  counter: "proxyUnauthenticated",
  reason: "a PROXYv2 header without the shared secret (TLV 0xE0)",
};
const CUT: ProxyDecision = {
  kind: "drop",
  counter: "proxyMalformed",
  reason: "the datagram ends inside its PROXYv2 header",
};

/** Peers remembered as listed or not; past it the memory starts again. */
const PEERS_REMEMBERED = 1024;

interface Range {
  address: ipaddr.IPv4 | ipaddr.IPv6;
  bits: number;
}

/** Thrown for a `ProxyTrustInit` the configuration would have refused. */
export class ProxyTrustError extends Error {
  override name = "ProxyTrustError";
}

export class ProxyTrust {
  /** What this was built from: post it to a Worker, build it again there. */
  readonly init: ProxyTrustInit;
  readonly #ranges: Range[];
  readonly #secret: Uint8Array | undefined;
  /** Peers already matched (dnsdist is one or two addresses). */
  readonly #listed = new Map<string, boolean>();

  /** @throws ProxyTrustError for an entry that is neither address nor prefix, a prefix wider than one address without a secret, a short secret */
  constructor(init: ProxyTrustInit) {
    const { from, secret } = init;
    if (secret !== undefined && secret.length < PROXY_SECRET_MIN_LENGTH) {
      throw new ProxyTrustError(
        `the PROXYv2 secret is ${secret.length} bytes; it needs at least ${PROXY_SECRET_MIN_LENGTH}`,
      );
    }
    this.#ranges = from.map((entry) => rangeOf(entry, secret !== undefined));
    this.#secret = secret;
    this.init = secret === undefined
      ? { from: [...from] }
      : { from: [...from], secret };
  }

  /** Whether `peer` ("192.0.2.1", "::ffff:192.0.2.1", "::1") is listed. */
  trusts(peer: string): boolean {
    let listed = this.#listed.get(peer);
    if (listed === undefined) {
      listed = this.#match(peer);
      // Bounded: headers from many spoofed sources must not grow it.
      if (this.#listed.size >= PEERS_REMEMBERED) this.#listed.clear();
      this.#listed.set(peer, listed);
    }
    return listed;
  }

  /**
   * The decision for a datagram from `peer`:`peerPort`: never `incomplete`
   * (a header cut short is malformed). Without the signature it costs a
   * comparison or two and allocates nothing.
   */
  datagram(peer: string, peerPort: number, bytes: Uint8Array): ProxyDecision {
    if (!hasProxyV2Signature(bytes)) return DIRECT;
    return this.#decide(peer, peerPort, bytes, false);
  }

  /**
   * The decision for the first `bytes` read on a connection from
   * `peer`:`peerPort`. `incomplete` asks for more: fewer than 12 octets
   * that match the signature so far, or a header not all there. A DNS
   * message over TCP that starts like the signature is announced as 3,338
   * octets long (0x0d0a), so waiting for 16 never stalls a real client.
   */
  stream(peer: string, peerPort: number, bytes: Uint8Array): ProxyDecision {
    if (bytes.length < PROXY_V2_SIGNATURE.length) {
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] !== PROXY_V2_SIGNATURE[i]) return DIRECT;
      }
      return { kind: "incomplete", needed: 16 };
    }
    if (!hasProxyV2Signature(bytes)) return DIRECT;
    return this.#decide(peer, peerPort, bytes, true);
  }

  /** `bytes` start with the signature. */
  #decide(
    peer: string,
    peerPort: number,
    bytes: Uint8Array,
    stream: boolean,
  ): ProxyDecision {
    // Before the parse: a stranger learns nothing of what we accept.
    if (!this.trusts(peer)) return UNTRUSTED;
    const parsed = parseProxyV2(bytes);
    switch (parsed.kind) {
      case "none":
        return DIRECT; // not reached: the signature is there
      case "incomplete":
        return stream ? parsed : CUT;
      case "malformed":
        return {
          kind: "drop",
          counter: "proxyMalformed",
          reason: `a malformed PROXYv2 header: ${parsed.reason}`,
        };
    }
    const header = parsed.header;
    // A LOCAL header from a listed peer needs no secret: it names no
    // client (the peer stays the client, as with no header at all), and
    // dnsdist's health checks send one without any TLV. Every PROXY header
    // must carry the secret, whatever its family.
    if (
      this.#secret !== undefined && header.command !== "local" &&
      !carries(header, this.#secret)
    ) {
      return UNAUTHENTICATED;
    }
    const source = header.source;
    // §2.2: LOCAL means "use the real connection endpoints"; AF_UNSPEC,
    // AF_UNIX and an unspecified transport leave the peer the client too.
    if (
      header.command === "local" || source === undefined ||
      header.protocol === "unspec"
    ) {
      return {
        kind: "proxied",
        address: peer,
        port: peerPort,
        headerLength: header.length,
        header,
      };
    }
    return {
      kind: "proxied",
      address: source.address,
      port: source.port,
      headerLength: header.length,
      header,
    };
  }

  #match(peer: string): boolean {
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      address = unmapped(ipaddr.parse(peer));
    } catch {
      return false;
    }
    for (const range of this.#ranges) {
      if (
        range.address.kind() === address.kind() &&
        address.match(range.address, range.bits)
      ) return true;
    }
    return false;
  }
}

/** Whether the header's first TLV 0xE0 is `secret`. */
function carries(header: ProxyV2Header, secret: Uint8Array): boolean {
  for (const tlv of header.tlvs) {
    if (tlv.type === PROXY_SECRET_TLV) return sameSecret(tlv.value, secret);
  }
  return false;
}

/**
 * Compares in a time that depends on the lengths only (the secret's length
 * is no secret): every octet is read, differences are OR-ed together, no
 * early exit. node:crypto's timingSafeEqual does the same for ~1 µs a call
 * in Deno, which every datagram behind a header would pay; this loop costs
 * tens of nanoseconds (the tests check that both agree).
 */
export function sameSecret(value: Uint8Array, secret: Uint8Array): boolean {
  if (value.length !== secret.length) return false;
  let difference = 0;
  for (let i = 0; i < secret.length; i++) {
    difference |= value[i]! ^ secret[i]!;
  }
  return difference === 0;
}

/**
 * An entry as a range. IPv4-mapped IPv6 entries and peers are matched as
 * IPv4: a dual-stack socket reports IPv4 peers as "::ffff:192.0.2.1".
 */
function rangeOf(entry: string, withSecret: boolean): Range {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  if (isIpAddress(entry)) {
    address = ipaddr.parse(entry);
    bits = address.kind() === "ipv4" ? 32 : 128;
  } else if (isCidr(entry)) {
    [address, bits] = ipaddr.parseCIDR(entry);
  } else {
    throw new ProxyTrustError(
      `listeners.proxyProtocolFrom: "${entry}" is not an IP address or a CIDR prefix`,
    );
  }
  const exact = bits === (address.kind() === "ipv4" ? 32 : 128);
  if (!exact && !withSecret) {
    throw new ProxyTrustError(
      `listeners.proxyProtocolFrom: "${entry}" is wider than one address; ` +
        "that needs listeners.proxyProtocolSecretFile",
    );
  }
  if (address.kind() === "ipv6" && bits >= 96) {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      return { address: v6.toIPv4Address(), bits: bits - 96 };
    }
  }
  return { address, bits };
}

function unmapped(
  address: ipaddr.IPv4 | ipaddr.IPv6,
): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  }
  return address;
}

/** Thrown by readProxySecret: the file, and what is wrong with it. */
export class ProxySecretError extends Error {
  override name = "ProxySecretError";
}

/**
 * The secret in a secret file's bytes: line ends (CR, LF) at its end
 * trimmed, at least PROXY_SECRET_MIN_LENGTH octets. dnsdist's side (the
 * edge supervisor, src/edge/) reads the file the same way.
 *
 * @returns the secret, or a sentence saying why the bytes are none
 */
export function proxySecretFrom(bytes: Uint8Array): Uint8Array | string {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) {
    end--;
  }
  if (end < PROXY_SECRET_MIN_LENGTH) {
    return `the secret is ${end} bytes (line ends not counted); ` +
      `it needs at least ${PROXY_SECRET_MIN_LENGTH}, such as the output of ` +
      "`openssl rand -hex 32`";
  }
  return bytes.slice(0, end);
}

/**
 * The secret of `listeners.proxyProtocolSecretFile` (proxySecretFrom). Read
 * once at start; the caller reports the error.
 */
export async function readProxySecret(path: string): Promise<Uint8Array> {
  const setting = `listeners.proxyProtocolSecretFile "${path}"`;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound
      ? "no such file"
      : (err as Error).message;
    throw new ProxySecretError(`${setting}: cannot read it: ${why}`);
  }
  const secret = proxySecretFrom(bytes);
  if (typeof secret === "string") {
    throw new ProxySecretError(`${setting}: ${secret}`);
  }
  return secret;
}
