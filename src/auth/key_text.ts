/**
 * The text form of an encryption key: what KUDURRU_ENCRYPTION_KEY, the
 * file a _FILE variable names and a generated key file hold.
 */

/** Bytes of a master key. */
export const ENCRYPTION_KEY_BYTES = 32;

/**
 * The 32 bytes a key text holds: 64 hex digits, or base64 or base64url
 * with or without padding. Surrounding whitespace (a file's last newline)
 * is ignored.
 *
 * @param where the variable or file it came from, for the error
 * @throws {Error} naming `where` when the text is not 32 random bytes
 */
export function parseEncryptionKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  const how =
    "it must be 32 random bytes written as base64 or as 64 hex digits (make one with: openssl rand -base64 32)";
  if (trimmed === "") {
    throw new Error(`Cannot use ${where}: it is empty; ${how}`);
  }
  let bytes: Uint8Array | undefined;
  // Hex first: 64 hex digits are also valid base64, of 48 bytes.
  if (/^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0) {
    bytes = Uint8Array.fromHex(trimmed);
  } else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    try {
      const urlSafe = /[_-]/.test(trimmed);
      bytes = Uint8Array.fromBase64(trimmed, {
        alphabet: urlSafe ? "base64url" : "base64",
      });
    } catch {
      bytes = undefined;
    }
  }
  if (bytes === undefined) {
    throw new Error(
      `Cannot use ${where}: it is neither hex nor base64; ${how}`,
    );
  }
  if (bytes.length !== ENCRYPTION_KEY_BYTES) {
    const size = bytes.length < ENCRYPTION_KEY_BYTES ? "too short" : "too long";
    throw new Error(
      `Cannot use ${where}: the key is ${size} (${bytes.length} bytes); ${how}`,
    );
  }
  // Random bytes repeat few values (about 30 of 32 are distinct); a
  // placeholder such as 64 zeros or "0123…" repeated does.
  if (new Set(bytes).size < 16) {
    throw new Error(
      `Cannot use ${where}: the key is not random (it repeats a few byte values, like a placeholder); ${how}`,
    );
  }
  return bytes;
}

/** A new random master key, as the base64 text a key file or variable holds. */
export function newEncryptionKeyText(): string {
  return crypto.getRandomValues(new Uint8Array(ENCRYPTION_KEY_BYTES))
    .toBase64();
}
