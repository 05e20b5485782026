/**
 * Is this download a block list at all? An HTML error page, a gzip file
 * served without Content-Encoding, or a binary blob must reject the whole
 * source (the last good rules stay in force) instead of turning into
 * thousands of "invalid" lines. Used by the list fetcher on raw bytes and by
 * the parser on decoded text.
 */

import { NotAListError } from "../types.ts";

/** How much of the start of a body the binary and HTML checks look at. */
const SNIFF_BYTES = 4096;
/** Share of control characters above which a body counts as binary. */
const MAX_CONTROL_SHARE = 0.05;

/** Magic numbers of compressed or archive formats that lists are served in by mistake. */
const MAGICS: ReadonlyArray<{ bytes: number[]; what: string }> = [
  { bytes: [0x1f, 0x8b], what: "gzip-compressed" },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: "a zip archive" },
  { bytes: [0x42, 0x5a, 0x68], what: "bzip2-compressed" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: "xz-compressed" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: "zstd-compressed" },
];

const HTML_STARTS = ["<!doctype", "<html", "<head", "<body"];

const HTML_REASON = "the body is an HTML page, not a list";

/**
 * Why these bytes are not a list ("the body is an HTML page, not a list"),
 * or null when they look like text. Checks HTML, compressed/binary data and
 * a body mostly not UTF-8 (the last needs a full pass over the body).
 */
export function notAListReason(bytes: Uint8Array): string | null {
  for (const magic of MAGICS) {
    if (magic.bytes.every((b, i) => bytes[i] === b)) {
      return `the body is ${magic.what} data, not a list`;
    }
  }
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) {
    return "the body is binary (it contains NUL bytes), not a list";
  }
  let control = 0;
  for (const b of head) if (isControl(b)) control++;
  if (head.length > 0 && control / head.length > MAX_CONTROL_SHARE) {
    return "the body is binary (too many control characters), not a list";
  }
  // HTML markers are ASCII, so a latin1 view of the head is enough here.
  if (looksLikeHtml(latin1(head))) return HTML_REASON;
  // A stray Latin-1 byte (a comment's "ü") costs only its line, which no
  // longer reads as a name; a body mostly not UTF-8 is refused.
  const text = new TextDecoder("utf-8").decode(bytes);
  let replaced = 0;
  for (
    let at = text.indexOf("\ufffd");
    at >= 0;
    at = text.indexOf("\ufffd", at + 1)
  ) {
    replaced++;
  }
  if (text.length > 0 && replaced / text.length > MAX_CONTROL_SHARE) {
    return "the body is not UTF-8 text";
  }
  return null;
}

/**
 * The same checks on text that is already decoded (what `parseList` gets):
 * HTML, NUL characters, and a high share of control or replacement
 * characters (binary data decoded leniently).
 */
export function textNotAListReason(text: string): string | null {
  const n = Math.min(text.length, SNIFF_BYTES);
  let odd = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) {
      return "the body is binary (it contains NUL bytes), not a list";
    }
    if (c < 0x80 ? isControl(c) : c === 0xfffd) odd++;
  }
  if (n > 0 && odd / n > MAX_CONTROL_SHARE) {
    return "the body is binary (too many control characters), not a list";
  }
  return looksLikeHtml(text.slice(0, SNIFF_BYTES)) ? HTML_REASON : null;
}

/**
 * Checks the bytes and decodes them as UTF-8 without a BOM.
 * @throws NotAListError when the body is HTML, binary or mostly not UTF-8.
 */
export function decodeListBody(bytes: Uint8Array): string {
  const reason = notAListReason(bytes);
  if (reason !== null) throw new NotAListError(reason);
  // TextDecoder drops a leading BOM by default (ignoreBOM: false).
  return new TextDecoder("utf-8").decode(bytes);
}

/** C0 controls other than tab, LF, VT, FF, CR, plus DEL; ESC counts too. */
function isControl(c: number): boolean {
  return (c < 0x20 && (c < 0x09 || c > 0x0d)) || c === 0x7f;
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/**
 * An HTML page starts with a tag (after whitespace and a BOM); lists never
 * start with "<". A leading comment or XML prolog can come before the real
 * tag, so look for the markers in the first KiB once the body starts with "<".
 */
function looksLikeHtml(head: string): boolean {
  let i = 0;
  while (i < head.length && isBlankOrBom(head.charCodeAt(i))) i++;
  // "ï»¿" is a UTF-8 BOM seen through the latin1 view.
  if (head.startsWith("\u00ef\u00bb\u00bf", i)) i += 3;
  while (i < head.length && isBlankOrBom(head.charCodeAt(i))) i++;
  if (head.charCodeAt(i) !== 0x3c) return false;
  const start = head.slice(i, i + 1024).toLowerCase();
  return HTML_STARTS.some((tag) => start.includes(tag));
}

function isBlankOrBom(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xfeff;
}
