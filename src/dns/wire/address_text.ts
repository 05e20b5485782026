/**
 * Answer addresses from wire octets to the text block lists write them in:
 * dotted quads for IPv4, RFC 5952 for IPv6 (lowercase hex, no leading
 * zeros, the longest run of two or more zero groups as `::`, the first
 * such run on a tie). This is the form `parseIpv6Text` and ipaddr.js's
 * `toRFC5952String` produce, so a bare-IP rule and an answer address
 * compare as plain strings. IPv4-mapped addresses stay in hex
 * (`::ffff:c000:201`), as ipaddr.js writes them.
 */

/** The IPv4 address in `bytes[at..at+4]` (the caller checked the bounds). */
export function ipv4Text(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** The IPv6 address in `bytes[at..at+16]` (the caller checked the bounds). */
export function ipv6Text(bytes: Uint8Array, at: number): string {
  // The longest run of zero groups; a single zero group is never shortened.
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let group = 0; group <= 8; group++) {
    const zero = group < 8 && bytes[at + 2 * group] === 0 &&
      bytes[at + 2 * group + 1] === 0;
    if (zero) {
      if (runStart === -1) runStart = group;
    } else if (runStart !== -1) {
      if (group - runStart > bestLength) {
        bestStart = runStart;
        bestLength = group - runStart;
      }
      runStart = -1;
    }
  }
  let text = "";
  for (let group = 0; group < 8; group++) {
    if (group === bestStart) {
      text += "::";
      group += bestLength - 1;
      continue;
    }
    if (text !== "" && !text.endsWith(":")) text += ":";
    const value = (bytes[at + 2 * group]! << 8) | bytes[at + 2 * group + 1]!;
    text += value.toString(16);
  }
  return text;
}
