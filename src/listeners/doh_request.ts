/**
 * Reading a DoH request (RFC 8484 §4.1) without a URL object: the path and
 * the `dns` parameter are cut out of `request.url` by hand, and the
 * parameter is decoded from base64url straight into the query's bytes. A
 * `new URL` per request would cost more than the rest together, and would
 * read a malformed Host header (Deno.serve puts it into `request.url`
 * unchecked over HTTP/1.1: `Host: x?y#`) as part of the path.
 *
 * Every function here is pure: doh.ts turns what they reject into the
 * HTTP status they name.
 */

/** RFC 8484 §6: the media type of both the POST body and the answer. */
export const DNS_MESSAGE = "application/dns-message";

/** A DNS message is at most 65,535 octets (its TCP length prefix, RFC 1035 §4.2.2). */
export const MAX_DNS_MESSAGE = 65_535;

/** RFC 1035 §4.1.1: nothing shorter than the header is a DNS message. */
export const DNS_HEADER_OCTETS = 12;

/**
 * Longest `dns` parameter: the base64url of 65,535 octets without padding
 * (RFC 4648 §5: four characters per three octets, the last group cut).
 */
export const MAX_DNS_PARAM = Math.ceil(MAX_DNS_MESSAGE * 4 / 3);

/** A request refused: its status and a one-line reason for the body. */
export interface Refusal {
  status: 400 | 403 | 404 | 405 | 408 | 413 | 414 | 415;
  reason: string;
}

/** Where the path starts and ends in `url` (scheme://authority/path?query). */
export interface UrlParts {
  /** The path, from its "/" to before "?" (or the end). */
  path: string;
  /** Index of the query's first character (after "?"), -1 when there is none. */
  queryStart: number;
}

/**
 * The path and where the query starts in `request.url`. Deno.serve builds
 * the URL as scheme, "://", the authority, then the request target's path
 * and query (RFC 9112 §3.2), so the path is from the first "/" after
 * "://". A Host header holding "/" shifts it (and the request then misses
 * the endpoint, a 404); nothing else can. Undefined when there is no path
 * (`OPTIONS *` leaves one, "/*", which no endpoint has).
 */
export function urlParts(url: string): UrlParts | undefined {
  const scheme = url.indexOf("://");
  if (scheme < 0) return undefined;
  const slash = url.indexOf("/", scheme + 3);
  if (slash < 0) return undefined;
  const question = url.indexOf("?", slash);
  return question < 0
    ? { path: url.slice(slash), queryStart: -1 }
    : { path: url.slice(slash, question), queryStart: question + 1 };
}

/**
 * The value of the first `dns` parameter of the query that starts at
 * `queryStart` in `url`, undefined without one. Values are not
 * percent-decoded: base64url needs no escapes (RFC 4648 §5); the one escape
 * a client might still send, "%3D" for padding, base64UrlDecode takes.
 */
export function dnsParam(url: string, queryStart: number): string | undefined {
  if (queryStart < 0) return undefined;
  let at = queryStart;
  while (at <= url.length) {
    let end = url.indexOf("&", at);
    if (end < 0) end = url.length;
    if (
      end - at >= 4 && url.charCodeAt(at) === 0x64 && // d
      url.charCodeAt(at + 1) === 0x6e && // n
      url.charCodeAt(at + 2) === 0x73 && // s
      url.charCodeAt(at + 3) === 0x3d // =
    ) {
      return url.slice(at + 4, end);
    }
    at = end + 1;
  }
  return undefined;
}

/** Base64url alphabet (RFC 4648 §5) to 6-bit values; -1 for anything else. */
const SEXTETS = new Int8Array(128).fill(-1);
{
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let i = 0; i < alphabet.length; i++) {
    SEXTETS[alphabet.charCodeAt(i)] = i;
  }
}

/**
 * The octets of a base64url text (RFC 4648 §5), undefined when it is not
 * one. RFC 8484 §4.1 says the padding MUST NOT be sent; trailing "=" (or
 * "%3D") is taken all the same, as a lenient reader should. Bits left over
 * in the last character are ignored.
 */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  let end = text.length;
  for (let pads = 0; pads < 2; pads++) {
    if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end -= 1;
    else if (isEscapedPad(text, end)) end -= 3;
    else break;
  }
  const tail = end & 3;
  if (tail === 1) return undefined; // six bits cannot end an octet
  const out = new Uint8Array((end >> 2) * 3 + (tail === 0 ? 0 : tail - 1));
  let o = 0;
  let i = 0;
  for (; i + 4 <= end; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = sextet(text, i + 2);
    const d = sextet(text, i + 3);
    if ((a | b | c | d) < 0) return undefined;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    out[o++] = n >> 8;
    out[o++] = n;
  }
  if (tail !== 0) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = tail === 3 ? sextet(text, i + 2) : 0;
    if ((a | b | c) < 0) return undefined;
    const n = (a << 18) | (b << 12) | (c << 6);
    out[o++] = n >> 16;
    if (tail === 3) out[o] = n >> 8;
  }
  return out;
}

/** "%3D" (or "%3d") just before `end`. */
function isEscapedPad(text: string, end: number): boolean {
  return end >= 3 && text.charCodeAt(end - 3) === 0x25 && // %
    text.charCodeAt(end - 2) === 0x33 && // 3
    (text.charCodeAt(end - 1) | 0x20) === 0x64; // d or D
}

function sextet(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code < 128 ? SEXTETS[code]! : -1;
}

/**
 * The query of a GET request, or why there is none: 414 for a parameter
 * longer than any DNS message encodes to, 400 for a missing one, one that
 * is not base64url, or fewer octets than a DNS header.
 */
export function queryFromGet(
  url: string,
  queryStart: number,
): Uint8Array | Refusal {
  const param = dnsParam(url, queryStart);
  if (param === undefined) {
    return { status: 400, reason: "no dns parameter (RFC 8484 §4.1)" };
  }
  // Padding may come on top of the longest unpadded form.
  if (param.length > MAX_DNS_PARAM + 9) {
    return { status: 414, reason: "dns parameter longer than a DNS message" };
  }
  const query = base64UrlDecode(param);
  if (query === undefined) {
    return { status: 400, reason: "dns parameter is not base64url" };
  }
  return query.length < DNS_HEADER_OCTETS ? tooShort() : query;
}

/** The refusal of a message shorter than a DNS header. */
export function tooShort(): Refusal {
  return {
    status: 400,
    reason: "DNS message shorter than its 12-octet header",
  };
}

/**
 * True when a Content-Type header names application/dns-message (RFC
 * 8484 §6), the media type compared without case and without parameters
 * (RFC 9110 §8.3.1).
 */
export function isDnsMessageType(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === DNS_MESSAGE) return true;
  const semicolon = contentType.indexOf(";");
  const type = semicolon < 0 ? contentType : contentType.slice(0, semicolon);
  return type.trim().toLowerCase() === DNS_MESSAGE;
}

/**
 * What a POST's Content-Length allows before its body is read: the length
 * to read, undefined when the header is absent (a chunked body, or HTTP/2
 * without it: read up to the cap), or the refusal (413 over 65,535, 400
 * under a DNS header or not a length at all, RFC 9110 §8.6).
 */
export function postLength(
  contentLength: string | null,
): number | undefined | Refusal {
  if (contentLength === null) return undefined;
  if (contentLength.length === 0) return notALength();
  let length = 0;
  for (let i = 0; i < contentLength.length; i++) {
    const digit = contentLength.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return notALength();
    length = length * 10 + digit;
  }
  if (length > MAX_DNS_MESSAGE) return tooLarge();
  return length < DNS_HEADER_OCTETS ? tooShort() : length;
}

function notALength(): Refusal {
  return { status: 400, reason: "Content-Length is not a length" };
}

/** The refusal of a body longer than a DNS message. */
export function tooLarge(): Refusal {
  return { status: 413, reason: "body longer than a DNS message (65535)" };
}
