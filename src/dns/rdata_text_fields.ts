/**
 * Field-level readers shared by the presentation-format rdata parsers:
 * tokens, numbers, character-strings, hex, base64, names and addresses. Each
 * takes a `what` ("MX preference") so its error names the field.
 */
import ipaddr from "ipaddr.js";
import { checkDomainName, toFqdn } from "./name.ts";

/** Record data text that does not parse; the message names the field. */
export class RdataSyntaxError extends SyntaxError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RdataSyntaxError";
  }
}

/** One whitespace-separated field; quoted fields keep their inner text raw. */
export interface Token {
  text: string;
  quoted: boolean;
}

const WHITESPACE = /[ \t\r\n]/;

/**
 * Splits rdata text into fields. A field is either a quoted string (escapes
 * kept for the field parser) or a run of non-whitespace in which a backslash
 * protects the next character.
 */
export function tokenize(type: string, text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (WHITESPACE.test(text[i]!)) {
      i++;
      continue;
    }
    const quoted = text[i] === '"';
    const start = quoted ? i + 1 : i;
    let j = start;
    while (j < text.length) {
      const ch = text[j]!;
      if (ch === "\\") j += 2;
      else if (quoted ? ch === '"' : WHITESPACE.test(ch)) break;
      else j++;
    }
    if (quoted) {
      if (j >= text.length) {
        throw new RdataSyntaxError(
          `${type} data has an unterminated quoted string`,
        );
      }
      const after = text[j + 1];
      if (after !== undefined && !WHITESPACE.test(after)) {
        throw new RdataSyntaxError(
          `${type} data has text right after a closing quote`,
        );
      }
      tokens.push({ text: text.slice(start, j), quoted: true });
      i = j + 1;
    } else {
      tokens.push({
        text: text.slice(start, Math.min(j, text.length)),
        quoted: false,
      });
      i = j;
    }
  }
  return tokens;
}

/** Throws unless there are exactly as many fields as names. */
export function expectFields(
  type: string,
  tokens: Token[],
  names: string[],
): void {
  if (tokens.length === names.length) return;
  throw new RdataSyntaxError(
    `${type} needs ${names.length} fields (${
      names.join(" ")
    }), got ${tokens.length}`,
  );
}

/** Reads an unsigned decimal number no larger than `max`. */
export function parseUint(text: string, what: string, max: number): number {
  if (/^[0-9]{1,10}$/.test(text)) {
    const value = Number(text);
    if (value <= max) return value;
  }
  throw new RdataSyntaxError(`${what} "${text}" is not a number 0-${max}`);
}

const encoder = new TextEncoder();

/**
 * Decodes a character-string's escapes (`\"`, `\\`, `\DDD`, `\X`) to octets;
 * other characters become their UTF-8 octets.
 */
export function decodeCharString(raw: string, what: string): Uint8Array {
  const out: number[] = [];
  let plainStart = 0;
  const flushPlain = (end: number) => {
    if (end > plainStart) {
      out.push(...encoder.encode(raw.slice(plainStart, end)));
    }
  };
  let i = 0;
  while (i < raw.length) {
    if (raw[i] !== "\\") {
      i++;
      continue;
    }
    flushPlain(i);
    const next = raw[i + 1];
    if (next === undefined) {
      throw new RdataSyntaxError(`${what} ends with a lone backslash`);
    }
    if (next >= "0" && next <= "9") {
      const digits = raw.slice(i + 1, i + 4);
      if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
        throw new RdataSyntaxError(
          `${what} has an escape "\\${digits}" that is not \\000-\\255`,
        );
      }
      out.push(Number(digits));
      i += 4;
    } else {
      const char = String.fromCodePoint(raw.codePointAt(i + 1)!);
      out.push(...encoder.encode(char));
      i += 1 + char.length;
    }
    plainStart = i;
  }
  flushPlain(raw.length);
  return Uint8Array.from(out);
}

/** Reads hex digits, ignoring whitespace between them. */
export function parseHex(text: string, what: string): Uint8Array {
  const digits = text.replace(/[ \t\r\n]+/g, "");
  const bad = digits.match(/[^0-9a-fA-F]/);
  if (bad) {
    throw new RdataSyntaxError(`${what} has a non-hex character "${bad[0]}"`);
  }
  if (digits.length % 2 !== 0) {
    throw new RdataSyntaxError(`${what} has an odd number of hex digits`);
  }
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}

/** Reads standard base64 with padding (RFC 4648 §4). */
export function parseBase64(text: string, what: string): Uint8Array {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new RdataSyntaxError(`${what} is not valid base64`);
  }
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/**
 * Reads a domain name inside rdata: absolute whether or not it ends with a
 * dot (external-dns writes none), returned fully qualified.
 */
export function parseRdataName(token: Token, what: string): string {
  if (token.quoted) {
    throw new RdataSyntaxError(`${what} "${token.text}" must not be quoted`);
  }
  const problem = checkDomainName(token.text);
  if (problem !== null) {
    throw new RdataSyntaxError(
      `${what} "${token.text}" is not a valid name: ${problem}`,
    );
  }
  return toFqdn(token.text);
}

/** Canonical dotted quad, or null; leading zeros and short forms are rejected. */
export function parseIpv4Text(text: string): string | null {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return null;
  return ipaddr.IPv4.parse(text).toString();
}

/** Canonical RFC 5952 text, or null; zone indexes (`%eth0`) are rejected. */
export function parseIpv6Text(text: string): string | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  const lastColon = text.lastIndexOf(":");
  if (
    text.includes(".") &&
    !ipaddr.IPv4.isValidFourPartDecimal(text.slice(lastColon + 1))
  ) {
    return null;
  }
  if (!ipaddr.IPv6.isValid(text)) return null;
  return ipaddr.IPv6.parse(text).toRFC5952String();
}
