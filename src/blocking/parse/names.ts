/**
 * Names as rules hold them: lowercase ASCII, IDNs in punycode, no trailing
 * dot, labels of 1-63 characters of [a-z0-9_-], at most 253 characters; IP
 * addresses in canonical text. `isPlainNameAt` is the allocation-free fast
 * path the parsers try first on a slice of the body; `normalizeName` is the
 * general (slower) path for everything else.
 */

import ipaddr from "ipaddr.js";

const MAX_NAME = 253;
const MAX_LABEL = 63;

/** Per ASCII code: 1 = label character [a-z0-9_-], 2 = dot, 0 = anything else. */
const NAME_CHAR = new Uint8Array(128);
for (let c = 0x61; c <= 0x7a; c++) NAME_CHAR[c] = 1; // a-z
for (let c = 0x30; c <= 0x39; c++) NAME_CHAR[c] = 1; // 0-9
NAME_CHAR[0x2d] = 1; // -
NAME_CHAR[0x5f] = 1; // _ (real lists have _dmarc-style names)
NAME_CHAR[0x2e] = 2; // .

/**
 * True when body[start, end) is already a normalised name: only
 * [a-z0-9_.-], labels 1-63, no trailing dot, at most 253 characters. Such a
 * slice is used as is; anything else goes through `normalizeName`.
 * (A dotted-quad passes too: its text is already canonical or a valid name.)
 */
export function isPlainNameAt(
  body: string,
  start: number,
  end: number,
): boolean {
  const length = end - start;
  if (length === 0 || length > MAX_NAME) return false;
  let label = 0;
  for (let i = start; i < end; i++) {
    const c = body.charCodeAt(i);
    const kind = c < 128 ? NAME_CHAR[c] : 0;
    if (kind === 1) {
      if (++label > MAX_LABEL) return false;
    } else if (kind === 2) {
      if (label === 0) return false; // empty label: leading dot or ".."
      label = 0;
    } else {
      return false;
    }
  }
  return label > 0; // a trailing dot needs normalising
}

/**
 * The normalised form of a name or IP address, or null when it is not one.
 * Lowercases, strips one trailing dot, converts IDNs to punycode and
 * canonicalises IP addresses ("2001:DB8:0::1" -> "2001:db8::1").
 */
export function normalizeName(text: string): string | null {
  if (text.length === 0 || text.length > 1024) return null;
  if (text.includes(":")) return canonicalIPv6(text);
  let name = text.toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (isPlainNameAt(name, 0, name.length)) {
    return ipaddr.IPv4.isValidFourPartDecimal(name)
      ? ipaddr.IPv4.parse(name).toString()
      : name;
  }
  if (!hasNonAscii(name)) return null;
  const ascii = toPunycode(name);
  return ascii !== null && isPlainNameAt(ascii, 0, ascii.length) ? ascii : null;
}

/** Canonical text of an IP address (v4 dotted quad or v6), or null. */
export function canonicalIp(text: string): string | null {
  if (text.includes(":")) return canonicalIPv6(text);
  return ipaddr.IPv4.isValidFourPartDecimal(text)
    ? ipaddr.IPv4.parse(text).toString()
    : null;
}

/**
 * Whether a hosts line's address means "block" (0.0.0.0, 127.0.0.0/8, ::,
 * ::1) rather than "answer with this address" (a rewrite). Null when the
 * text is not an IP address at all.
 */
export function hostsAddressBlocks(text: string): boolean | null {
  if (
    text === "0.0.0.0" || text === "127.0.0.1" || text === "::" ||
    text === "::1"
  ) return true;
  const c = text.charCodeAt(0);
  // Names start with a letter far more often than not: skip the parse.
  if (
    !(c >= 0x30 && c <= 0x39) && c !== 0x3a &&
    !((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)
  ) {
    return null;
  }
  if (text.includes(":")) {
    // hosts files carry zone ids ("fe80::1%lo0 localhost"); the zone does not matter here.
    const percent = text.indexOf("%");
    const address = percent < 0 ? text : text.slice(0, percent);
    if (!isIPv6(address)) return null;
    const range = ipaddr.IPv6.parse(address).range();
    return range === "unspecified" || range === "loopback";
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return null;
  const octets = ipaddr.IPv4.parse(text).octets;
  return octets[0] === 127 || octets.every((o) => o === 0);
}

/**
 * Names hosts files carry for the machine itself. They are ignored, not
 * blocked and not counted as invalid.
 */
export const HOSTS_BOILERPLATE: ReadonlySet<string> = new Set([
  "localhost",
  "localhost.localdomain",
  "local",
  "broadcasthost",
  "ip6-localhost",
  "ip6-loopback",
  "ip6-localnet",
  "ip6-mcastprefix",
  "ip6-allnodes",
  "ip6-allrouters",
  "ip6-allhosts",
  "0.0.0.0",
]);

function isIPv6(text: string): boolean {
  // Zone ids ("fe80::1%eth0") are no use in a block list.
  return !text.includes("%") && ipaddr.IPv6.isValid(text);
}

function canonicalIPv6(text: string): string | null {
  return isIPv6(text) ? ipaddr.IPv6.parse(text).toString() : null;
}

function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return true;
  }
  return false;
}

/** IDN to punycode through the URL parser (UTS #46 mapping), or null. */
function toPunycode(name: string): string | null {
  // Only label characters may reach the URL parser: "/", "@", ":" and the
  // like would be read as URL syntax and yield some other host.
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 128 && NAME_CHAR[c] === 0) return null;
  }
  try {
    const host = new URL(`http://${name}/`).hostname;
    return host.endsWith(".") ? host.slice(0, -1) : host;
  } catch {
    return null;
  }
}
