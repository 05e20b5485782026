/**
 * API tokens for programs (docs/design.md#secure-by-default):
 *
 *     kdr_<id>_<secret>
 *
 * The id is 12 characters of lowercase base32 (60 random bits): it names
 * the token in listings, audit rows and logs, and is not secret. The secret
 * is 32 random bytes as unpadded base64url (43 characters). The prefix makes
 * a leaked token easy to recognise (secret scanners, grep).
 *
 * Only the SHA-256 of the secret is stored, never the secret: someone who
 * reads the database cannot use what they read. A fast hash is enough,
 * unlike for passwords, because the secret is 256 random bits, not
 * something a person chose. The secret is shown once, when the token is
 * made.
 *
 * Checking a request: parseToken, look the id up, then secretMatches with
 * the stored hash, or with undefined when no token has that id. An unknown
 * id and a wrong secret must get the same 401 with the same body, so a
 * caller learns nothing about which ids exist.
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";
import { toBase64url } from "./base64url.ts";

/** What every token starts with. */
export const TOKEN_PREFIX = "kdr_";

/** Characters of a token id. */
export const TOKEN_ID_LENGTH = 12;

/** Random bytes of a token secret. */
export const TOKEN_SECRET_BYTES = 32;

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

// 43 base64url characters carry 258 bits: the last one holds 2 spare bits
// that must be zero, so it is one of these 16 (one text per secret).
const TOKEN = new RegExp(
  `^${TOKEN_PREFIX}([a-z2-7]{${TOKEN_ID_LENGTH}})_([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$`,
);

const HASH = /^[0-9a-f]{64}$/;

/** A token just made: `text` is shown once; `id` and `secretHash` are stored. */
export interface NewToken {
  id: string;
  secret: string;
  /** The whole token, `kdr_<id>_<secret>`, for the Authorization header. */
  text: string;
  /** SHA-256 of the secret, hex: the only form of the secret that is stored. */
  secretHash: string;
}

/** The parts of a token a client sent. */
export interface ParsedToken {
  id: string;
  secret: string;
}

/** A new token from crypto random bytes. */
export function newToken(): NewToken {
  // 32 divides 256: the low 5 bits of a random byte are an unbiased choice.
  const id = Array.from(
    crypto.getRandomValues(new Uint8Array(TOKEN_ID_LENGTH)),
    (byte) => BASE32[byte & 31],
  ).join("");
  const secret = toBase64url(
    crypto.getRandomValues(new Uint8Array(TOKEN_SECRET_BYTES)),
  );
  return {
    id,
    secret,
    text: `${TOKEN_PREFIX}${id}_${secret}`,
    secretHash: secretHash(secret),
  };
}

/**
 * The id and secret of `text`, or undefined unless it is exactly a token's
 * shape (prefix, charset and lengths; no surrounding whitespace).
 */
export function parseToken(text: string): ParsedToken | undefined {
  const m = TOKEN.exec(text);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** SHA-256 of `secret` (its UTF-8 text), as 64 lowercase hex digits. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

// Compared against when no token has the id, so that path costs the same.
const NO_TOKEN_HASH = secretHash("kudurru: no token has this id");

/**
 * True when `secret` hashes to `storedHash`, compared over the full hash
 * in constant time. Pass undefined as `storedHash` when no token has the
 * id: the work is the same and the answer is false.
 */
export function secretMatches(
  secret: string,
  storedHash: string | undefined,
): boolean {
  const stored = storedHash !== undefined && HASH.test(storedHash)
    ? storedHash
    : NO_TOKEN_HASH;
  const same = timingSafeEqual(
    Buffer.from(secretHash(secret), "hex"),
    Buffer.from(stored, "hex"),
  );
  return same && stored === storedHash;
}
