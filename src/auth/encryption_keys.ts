/**
 * The master keys that seal cookies and secrets at rest (sealed.ts), and
 * the purpose keys derived from them.
 *
 * The current key comes from KUDURRU_ENCRYPTION_KEY, or from the file that
 * KUDURRU_ENCRYPTION_KEY_FILE names (a Docker or Kubernetes secret). Without
 * either, kudurru makes one at first start in `<dataDir>/keys/encryption.key`
 * and reads it back on every later start: secure by default, nothing to set
 * up for one node. Several nodes must share one key, through the
 * environment. KUDURRU_ENCRYPTION_KEY_PREVIOUS[_FILE] keeps the key before a
 * rotation able to open what it sealed while everything new is sealed with
 * the current one.
 *
 * Master keys never leave WebCrypto: each is imported as a non-extractable
 * HKDF key, so no log line or JSON dump can show it. Each purpose gets its
 * own AES-256-GCM key through HKDF-SHA256 with its own `info` (RFC 5869),
 * so a key for session cookies opens nothing else.
 */
import { join } from "node:path";
import {
  type FileKey,
  GENERATED_KEY_PATH,
  readOrCreateKeyFile,
} from "./key_file.ts";
import { parseEncryptionKey } from "./key_text.ts";

/** The variables that give the keys, each also with a _FILE variant. */
export const ENCRYPTION_KEY_VARIABLES = Object.freeze({
  current: "KUDURRU_ENCRYPTION_KEY",
  previous: "KUDURRU_ENCRYPTION_KEY_PREVIOUS",
});

/**
 * What each derived key is for, and its HKDF `info`. The version is part
 * of the info: changing how a purpose uses its key means a new info, so
 * old and new never share a key.
 */
export const KEY_PURPOSES = Object.freeze({
  sessionCookie: "kudurru session cookie v1",
  totpSecret: "kudurru totp secret v1",
  loginState: "kudurru login state v1",
});

/** A purpose a key is derived for. */
export type KeyPurpose = keyof typeof KEY_PURPOSES;

/** One master key, held by WebCrypto only. */
export interface MasterKey {
  /** Short public name of the key, written in envelopes (8 hex digits). */
  readonly id: string;
  /** Where it came from: a variable name or a file path, for messages. */
  readonly source: string;
  /** The key as a non-extractable HKDF base key. */
  readonly key: CryptoKey;
}

/** The keys in use, and what an operator should hear about them. */
export interface EncryptionKeys {
  /** Seals everything new, and opens what it sealed. */
  readonly current: MasterKey;
  /** Opens what was sealed before the last rotation, if one was given. */
  readonly previous: MasterKey | undefined;
  /** Things to log at start (a key was generated, a file is readable by others). */
  readonly notes: readonly string[];
}

/** Where loadEncryptionKeys reads from; tests give their own. */
export interface EncryptionKeySources {
  /** Reads an environment variable. */
  env: (name: string) => string | undefined;
  /** The data directory (node.dataDir), for a generated key. */
  dataDir: string;
  /**
   * Reads the file a _FILE variable names.
   * @default Deno.readTextFile
   */
  readFile?: (path: string) => Promise<string>;
}

/**
 * The current and previous master keys from the environment, or a key
 * generated into the data directory (and read back at later starts).
 *
 * @throws {Error} naming the variable or file whose key is missing, malformed or unsafe
 */
export async function loadEncryptionKeys(
  sources: EncryptionKeySources,
): Promise<EncryptionKeys> {
  const readFile = sources.readFile ?? Deno.readTextFile;
  const notes: string[] = [];
  const given = await keyFromEnv(
    ENCRYPTION_KEY_VARIABLES.current,
    sources.env,
    readFile,
  );
  const previousGiven = await keyFromEnv(
    ENCRYPTION_KEY_VARIABLES.previous,
    sources.env,
    readFile,
  );
  const path = join(sources.dataDir, GENERATED_KEY_PATH);
  let current: FileKey;
  if (given) {
    current = given;
    const left = await leftBehind(path, given.bytes, previousGiven?.bytes);
    if (left) notes.push(left);
  } else {
    current = await readOrCreateKeyFile(path, notes);
  }
  let previous: MasterKey | undefined;
  if (previousGiven) {
    if (sameBytes(previousGiven.bytes, current.bytes)) {
      notes.push(
        `${previousGiven.source} holds the same key as ${current.source}; it is ignored (unset it once every node has the new key)`,
      );
    } else {
      previous = await masterKey(previousGiven.bytes, previousGiven.source);
    }
  }
  const currentKey = await masterKey(current.bytes, current.source);
  if (previous && previous.id === currentKey.id) {
    throw new Error(
      `Cannot use ${previous.source} beside ${current.source}: the two keys have the same key id ${previous.id}; generate a new key (openssl rand -base64 32)`,
    );
  }
  current.bytes.fill(0);
  previousGiven?.bytes.fill(0);
  return { current: currentKey, previous, notes };
}

/**
 * Imports `bytes` as a master key. The key id is the first 8 hex digits of
 * SHA-256 over a fixed label and the key: public, short, and stable, so an
 * envelope names the key that opens it without saying anything about it.
 */
export async function masterKey(
  bytes: Uint8Array,
  source: string,
): Promise<MasterKey> {
  const label = new TextEncoder().encode("kudurru key id v1\0");
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", concat(label, bytes)),
  );
  const key = await crypto.subtle.importKey(
    "raw",
    bytes as Uint8Array<ArrayBuffer>,
    "HKDF",
    false,
    ["deriveKey", "deriveBits"],
  );
  return { id: digest.subarray(0, 4).toHex(), source, key };
}

/**
 * The AES-256-GCM key for `purpose` under `master` (HKDF-SHA256, empty
 * salt: the master key is already uniformly random), non-extractable.
 */
export function derivePurposeKey(
  master: MasterKey,
  purpose: KeyPurpose,
): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new Uint8Array(0),
      info: new TextEncoder().encode(KEY_PURPOSES[purpose]),
    },
    master.key,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** A key from `variable` or `variable_FILE`, or undefined when neither is set. */
async function keyFromEnv(
  variable: string,
  env: (name: string) => string | undefined,
  readFile: (path: string) => Promise<string>,
): Promise<FileKey | undefined> {
  const fileVariable = `${variable}_FILE`;
  const direct = env(variable);
  const file = env(fileVariable);
  if (direct !== undefined && file !== undefined) {
    throw new Error(
      `Cannot read the encryption key: ${variable} and ${fileVariable} are both set; set only one of them`,
    );
  }
  if (direct !== undefined) {
    return { bytes: parseEncryptionKey(direct, variable), source: variable };
  }
  if (file === undefined) return undefined;
  if (file.trim() === "") {
    throw new Error(
      `Cannot read the encryption key: ${fileVariable} is empty; name the file that holds the key`,
    );
  }
  let text: string;
  try {
    text = await readFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read the encryption key from "${file}" (${fileVariable}): ${
        messageOf(err)
      }`,
      { cause: err },
    );
  }
  const source = `${fileVariable} ("${file}")`;
  return { bytes: parseEncryptionKey(text, source), source };
}

/**
 * A note when a generated key file holds a key that is no longer used, so
 * whatever it sealed will not open; best effort, never an error.
 */
async function leftBehind(
  path: string,
  current: Uint8Array,
  previous: Uint8Array | undefined,
): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = parseEncryptionKey(await Deno.readTextFile(path), path);
  } catch {
    return undefined;
  }
  const used = sameBytes(bytes, current) ||
    (previous !== undefined && sameBytes(bytes, previous));
  bytes.fill(0);
  return used ? undefined : (
    `${ENCRYPTION_KEY_VARIABLES.current} is set, so the key kudurru generated in ${path} is not used: what it sealed (sessions, TOTP secrets) will not open unless ${ENCRYPTION_KEY_VARIABLES.previous}_FILE names that file`
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
