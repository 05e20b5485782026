/**
 * Sealed envelopes: a JSON value encrypted and authenticated with
 * AES-256-GCM under a purpose key (encryption_keys.ts), written as one
 * URL-safe string that fits a cookie or a database column:
 *
 *     v1.<key id>.<iv>.<ciphertext and tag>
 *
 * (iv and ciphertext in unpadded base64url, the iv 12 random bytes). The
 * additional authenticated data is the version, the key id and the
 * purpose's HKDF info, so an envelope made for one purpose does not open
 * as another (a session cookie is no TOTP secret) even if the purpose keys
 * were ever the same, and its header cannot be edited.
 *
 * Sealing hides and authenticates; it does not expire. A value that must
 * not outlive a session carries its own expiry inside.
 */
import { fromBase64url, toBase64url } from "./base64url.ts";
import {
  derivePurposeKey,
  type EncryptionKeys,
  KEY_PURPOSES,
  type KeyPurpose,
} from "./encryption_keys.ts";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[0-9a-f]{8}$/;

/**
 * The longest envelope open() looks at; anything longer is refused unread
 * (a cookie is at most 4 KiB; this leaves room for secrets at rest).
 */
export const MAX_SEALED_LENGTH = 64 * 1024;

/** The keys of one purpose: the current one seals, any of them opens. */
export interface SealingKeys {
  readonly purpose: KeyPurpose;
  /** Id of the key that seals. */
  readonly currentId: string;
  /** Every key that opens, by key id. */
  readonly byId: ReadonlyMap<string, CryptoKey>;
}

/** The current and previous keys of `purpose`, derived once for many seals. */
export async function sealingKeys(
  keys: EncryptionKeys,
  purpose: KeyPurpose,
): Promise<SealingKeys> {
  const byId = new Map<string, CryptoKey>();
  byId.set(keys.current.id, await derivePurposeKey(keys.current, purpose));
  if (keys.previous) {
    byId.set(keys.previous.id, await derivePurposeKey(keys.previous, purpose));
  }
  return { purpose, currentId: keys.current.id, byId };
}

/**
 * `value`, as JSON, sealed with the current key.
 *
 * @throws {TypeError} when `value` has no JSON form (undefined, a function, a bigint)
 */
export async function seal(value: unknown, keys: SealingKeys): Promise<string> {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new TypeError(`Cannot seal ${typeof value}: it has no JSON form`);
  }
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    {
      name: "AES-GCM",
      iv,
      additionalData: associatedData(keys.currentId, keys.purpose),
    },
    keys.byId.get(keys.currentId)!,
    new TextEncoder().encode(json),
  );
  return [
    VERSION,
    keys.currentId,
    toBase64url(iv),
    toBase64url(new Uint8Array(ciphertext)),
  ].join(".");
}

/**
 * The value sealed in `text`, or undefined when `text` is malformed,
 * tampered with, sealed for another purpose, or sealed with a key not in
 * `keys` (one rotated out). Never throws: `text` is whatever a client sent.
 */
export async function open(
  text: unknown,
  keys: SealingKeys,
): Promise<unknown | undefined> {
  const parts = envelopeParts(text);
  if (!parts) return undefined;
  const key = keys.byId.get(parts.keyId);
  if (!key) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: parts.iv,
        additionalData: associatedData(parts.keyId, keys.purpose),
      },
      key,
      parts.ciphertext,
    );
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plain));
  } catch {
    return undefined;
  }
}

/**
 * True when `text` is an envelope sealed with a key other than the current
 * one: after a rotation, seal its value again (a TOTP secret at rest) so
 * the previous key can be retired.
 */
export function needsReseal(text: string, keys: SealingKeys): boolean {
  const parts = envelopeParts(text);
  return parts !== undefined && parts.keyId !== keys.currentId;
}

interface EnvelopeParts {
  keyId: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

/** The parts of a well-formed envelope, or undefined. */
function envelopeParts(text: unknown): EnvelopeParts | undefined {
  if (typeof text !== "string" || text.length > MAX_SEALED_LENGTH) {
    return undefined;
  }
  const parts = text.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
  const [, keyId, ivText, ciphertextText] = parts as [
    string,
    string,
    string,
    string,
  ];
  if (!KEY_ID.test(keyId)) return undefined;
  const iv = fromBase64url(ivText);
  const ciphertext = fromBase64url(ciphertextText);
  if (iv?.length !== IV_BYTES || !ciphertext || ciphertext.length < TAG_BYTES) {
    return undefined;
  }
  return {
    keyId,
    iv: iv as Uint8Array<ArrayBuffer>,
    ciphertext: ciphertext as Uint8Array<ArrayBuffer>,
  };
}

function associatedData(
  keyId: string,
  purpose: KeyPurpose,
): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(
    `${VERSION}.${keyId}.${KEY_PURPOSES[purpose]}`,
  );
}
