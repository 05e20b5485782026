/**
 * Unpadded base64url (RFC 4648 §5), the encoding of tokens and sealed
 * envelopes. Decoding is strict: one text per byte string, so a token or an
 * envelope cannot be written two ways (the built-in decoder ignores the
 * spare bits of the last character, and would take "AB" and "AC" alike).
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** `bytes` as unpadded base64url. */
export function toBase64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * The bytes `text` encodes, or undefined unless it is canonical unpadded
 * base64url (no padding, no whitespace, no spare bits set).
 */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {
    return undefined;
  }
  return toBase64url(bytes) === text ? bytes : undefined;
}

/** Length of the unpadded base64url text of `byteLength` bytes. */
export function base64urlLength(byteLength: number): number {
  return Math.ceil((byteLength * 4) / 3);
}
