/**
 * The reverse proxies a DoH listener believes (`trustedProxies`), and the
 * client address behind them, read from X-Forwarded-For. Only a trusted
 * peer's header counts, and only as far as the hops it names are trusted
 * themselves: each proxy appends the address it saw, so the header is read
 * from the right, and the first address that is not a trusted proxy is the
 * client (anything to its left the client could have written).
 *
 * `Forwarded:` (RFC 7239) is not read. Believing both headers would let a
 * client spoof its address through the one its proxy passes along
 * untouched (nginx appends to X-Forwarded-For and forwards `Forwarded` as
 * the client sent it), and without a setting that says which header the
 * proxy writes, X-Forwarded-For is the one every proxy can write.
 */
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Peer verdicts kept before the memo is cleared (peers are few: the proxies). */
const MEMO_LIMIT = 1024;

export class TrustedProxies {
  readonly #v4: Range[] = [];
  readonly #v6: Range[] = [];
  readonly #memo = new Map<string, boolean>();

  /**
   * `entries`: addresses ("192.0.2.1", "2001:db8::1") or CIDR prefixes
   * ("10.0.0.0/8"). An IPv4-mapped IPv6 entry counts as its IPv4 address.
   *
   * @throws {TypeError} naming the first entry that is neither
   */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const range = parseRange(entry);
      if (range === undefined) {
        throw new TypeError(
          `trusted proxy "${entry}" is not an IP address or a CIDR prefix`,
        );
      }
      (range[0].kind() === "ipv4" ? this.#v4 : this.#v6).push(range);
    }
  }

  /** No proxy is trusted. */
  get empty(): boolean {
    return this.#v4.length === 0 && this.#v6.length === 0;
  }

  /** `address` (as a socket reports it, or canonical) is a trusted proxy. */
  trusts(address: string): boolean {
    const known = this.#memo.get(address);
    if (known !== undefined) return known;
    const parsed = parseAddress(address);
    const verdict = parsed !== undefined && this.#matches(parsed);
    if (this.#memo.size >= MEMO_LIMIT) this.#memo.clear();
    this.#memo.set(address, verdict);
    return verdict;
  }

  /**
   * The client behind `peer`: `peer` itself unless it is trusted and sent
   * X-Forwarded-For (`forwardedFor`, the header's lines joined by ", " as
   * Headers.get gives them). Walking the header from the right, each
   * trusted address hands over to the one before it; the first untrusted
   * one is the client, and when every one is trusted the leftmost is. An
   * entry that is not an address ("unknown", a name) stops the walk at the
   * trusted hop after it, the last one known. Addresses come back
   * canonical (RFC 5952 for IPv6), an IPv4-mapped one as its IPv4 address.
   */
  clientOf(peer: string, forwardedFor: string | null): string {
    if (forwardedFor === null || !this.trusts(peer)) return peer;
    let client = peer;
    let end = forwardedFor.length;
    while (end >= 0) {
      const comma = forwardedFor.lastIndexOf(",", end - 1);
      const hop = hopAddress(forwardedFor.slice(comma + 1, end));
      if (hop === undefined) return client;
      client = hop;
      if (!this.trusts(hop)) return hop;
      if (comma < 0) break;
      end = comma;
    }
    return client;
  }

  #matches(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    const ranges = address.kind() === "ipv4" ? this.#v4 : this.#v6;
    for (const range of ranges) {
      if (address.match(range)) return true;
    }
    return false;
  }
}

function parseRange(entry: string): Range | undefined {
  const text = entry.trim();
  const slash = text.indexOf("/");
  const address = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (address === undefined) return undefined;
  const v4 = address.kind() === "ipv4";
  if (slash < 0) return [address, v4 ? 32 : 128];
  const bits = text.slice(slash + 1);
  // Written as IPv6 (an IPv4-mapped prefix is ::ffff:0:0/96 and longer).
  const written = text.includes(":") ? 128 : 32;
  if (!/^[0-9]{1,3}$/.test(bits) || Number(bits) > written) return undefined;
  const prefix = Number(bits) - (v4 && written === 128 ? 96 : 0);
  return prefix < 0 ? undefined : [address, prefix];
}

/**
 * An address as text: dotted-quad IPv4 (not the octal or hex forms
 * `inet_aton` takes) or IPv6, brackets and zone dropped; an IPv4-mapped
 * IPv6 address as its IPv4 address.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const host = text.startsWith("[") && text.endsWith("]")
    ? text.slice(1, -1)
    : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipaddr.IPv4.parse(host);
  if (!host.includes(":") || !ipaddr.IPv6.isValid(host)) return undefined;
  const v6 = ipaddr.IPv6.parse(host.replace(/%.*$/, ""));
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/**
 * One X-Forwarded-For entry as a canonical address: "192.0.2.1",
 * "2001:db8::1", and the forms some proxies add a port to
 * ("192.0.2.1:4711", "[2001:db8::1]:4711"). Undefined for anything else.
 */
function hopAddress(entry: string): string | undefined {
  let text = entry.trim();
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0) return undefined;
    text = text.slice(1, close);
  } else {
    const colon = text.indexOf(":");
    if (colon >= 0 && colon === text.lastIndexOf(":")) {
      text = text.slice(0, colon); // IPv4 with a port
    }
  }
  return parseAddress(text)?.toString();
}
