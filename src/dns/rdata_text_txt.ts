/**
 * TXT in the two shapes we meet: zone-file style quoted character-strings
 * (`"v=spf1 -all"`, `"a" "b"`), and external-dns style raw text that does not
 * start with a quote and is one logical string, cut into 255-octet chunks.
 */
import type { TxtRdata } from "./rdata.ts";
import {
  decodeCharString,
  RdataSyntaxError,
  tokenize,
} from "./rdata_text_fields.ts";

const MAX_STRING_OCTETS = 255;
const MAX_RDATA_OCTETS = 65535;

/** Parses TXT data; see the module comment for the two accepted shapes. */
export function parseTxt(text: string): TxtRdata {
  const strings = text.trimStart().startsWith('"')
    ? quotedStrings(text)
    : chunkRawText(text);
  const wireOctets = strings.reduce((sum, s) => sum + 1 + s.length, 0);
  if (wireOctets > MAX_RDATA_OCTETS) {
    throw new RdataSyntaxError(
      `TXT data is ${wireOctets} octets in wire form; the limit is ${MAX_RDATA_OCTETS}`,
    );
  }
  return { type: "TXT", strings };
}

function quotedStrings(text: string): Uint8Array[] {
  return tokenize("TXT", text).map((token, index) => {
    const what = `TXT string ${index + 1}`;
    if (!token.quoted) {
      throw new RdataSyntaxError(
        `${what} "${token.text}" is not quoted; quote every string or none`,
      );
    }
    const octets = decodeCharString(token.text, what);
    if (octets.length > MAX_STRING_OCTETS) {
      throw new RdataSyntaxError(
        `${what} is ${octets.length} octets; the limit is ${MAX_STRING_OCTETS} (split it into several quoted strings)`,
      );
    }
    return octets;
  });
}

/**
 * Cuts raw text into chunks of at most 255 octets without splitting a UTF-8
 * sequence, so each chunk still decodes on its own. Raw text is literal: no
 * escapes, no trimming.
 */
function chunkRawText(text: string): Uint8Array[] {
  const octets = new TextEncoder().encode(text);
  if (octets.length === 0) return [octets];
  const chunks: Uint8Array[] = [];
  let start = 0;
  while (start < octets.length) {
    let end = Math.min(start + MAX_STRING_OCTETS, octets.length);
    // Back off continuation bytes (10xxxxxx) so the cut lands on a character start.
    while (
      end < octets.length && end > start + 1 && (octets[end]! & 0xc0) === 0x80
    ) end--;
    chunks.push(octets.slice(start, end));
    start = end;
  }
  return chunks;
}
