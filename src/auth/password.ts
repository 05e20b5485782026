/**
 * Local account passwords (docs/design.md#secure-by-default): Argon2id with
 * parameters the server fixes (OWASP's minimum: 19 MiB, 2 passes, 1 lane),
 * stored as the PHC string that carries them, so a later change of
 * parameters still verifies old hashes and `needsRehash` says which to
 * upgrade at the next login.
 *
 * Hashing is the costly part of a login, so everything an attacker could
 * use to make it costlier is bounded before it starts: the password's
 * length, the parameters a stored hash may ask for, and how many hashes run
 * or wait at once. The hashes run in Worker threads (password_workers.ts),
 * as many as may run at once, so the main thread (the HTTP API, the
 * query-log writer) goes on while a login is checked.
 *
 * Passwords are compared after Unicode NFKC normalisation (NIST SP 800-63B
 * §5.1.1.2), so a password typed with a composed "é" on one keyboard and a
 * decomposed one on another is the same password.
 */
import { ARGON2_PARAMETERS, argon2Parameters, verifiable } from "./argon2id.ts";
import { PasswordWorkers } from "./password_workers.ts";
import { Semaphore } from "./semaphore.ts";

export { ARGON2_PARAMETERS } from "./argon2id.ts";
export { PasswordWorkerError } from "./password_workers.ts";

/** Longest password accepted, in UTF-8 bytes (hashing a longer one is a denial of service). */
export const MAX_PASSWORD_BYTES = 1024;

/** Fewest characters (Unicode code points) of a new password. */
export const MIN_PASSWORD_CHARACTERS = 8;

/** Hashes running at once, and waiting behind them, in this process. */
export const HASHING_CONCURRENCY = Object.freeze({ running: 2, waiting: 32 });

/** Why a password was refused before any hashing. */
export type PasswordRefusal = "empty" | "too long";

/**
 * A password refused before hashing: empty, or longer than
 * MAX_PASSWORD_BYTES. The API answers 400 (or, at login, the same 401 as a
 * wrong password).
 */
export class PasswordRefusedError extends Error {
  override readonly name = "PasswordRefusedError";
  readonly reason: PasswordRefusal;

  constructor(reason: PasswordRefusal) {
    super(
      reason === "empty"
        ? "Cannot use an empty password"
        : `Cannot use a password longer than ${MAX_PASSWORD_BYTES} bytes (UTF-8)`,
    );
    this.reason = reason;
  }
}

/**
 * Too many hashes are running and waiting: the API answers 503 with
 * Retry-After rather than queue more requests.
 */
export class PasswordHashingBusyError extends Error {
  override readonly name = "PasswordHashingBusyError";
  /** A fair Retry-After: the queue drains in well under a second. */
  readonly retryAfterSeconds = 1;

  constructor() {
    super(
      `Cannot hash a password now: ${HASHING_CONCURRENCY.running} hashes are running and ${HASHING_CONCURRENCY.waiting} waiting; try again in a moment`,
    );
  }
}

// One per process: the bound is on memory and CPU, which all callers share.
const hashing = new Semaphore(
  HASHING_CONCURRENCY.running,
  HASHING_CONCURRENCY.waiting,
  () => new PasswordHashingBusyError(),
);

// As many Workers as hashes may run: each runs one at a time.
const workers = new PasswordWorkers({ size: HASHING_CONCURRENCY.running });

/**
 * The PHC string of `password` under ARGON2_PARAMETERS with a fresh
 * 16-byte salt.
 *
 * @throws {PasswordRefusedError} for an empty or overlong password
 * @throws {PasswordHashingBusyError} when too many hashes are queued
 * @throws {PasswordWorkerError} when the hashing Worker fails
 */
export async function hashPassword(password: string): Promise<string> {
  const normalised = acceptable(password);
  return await hashing.run(() =>
    workers.run({ op: "hash", password: normalised })
  );
}

/**
 * True when `password` is the one `encoded` (a PHC string from
 * hashPassword) was made from; the hashes are compared in constant time.
 *
 * @throws {PasswordRefusedError} for an empty or overlong password
 * @throws {PasswordHashingBusyError} when too many hashes are queued
 * @throws {PasswordWorkerError} when the hashing Worker fails
 * @throws {Error} when `encoded` is not an Argon2id hash kudurru verifies
 */
export async function verifyPassword(
  password: string,
  encoded: string,
): Promise<boolean> {
  const normalised = acceptable(password);
  verifiable(encoded); // throws before queueing
  return await hashing.run(() =>
    workers.run({ op: "verify", password: normalised, encoded })
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * Does the work of verifyPassword against a hash nobody's password matches,
 * and returns false: a login for an unknown user takes as long as a wrong
 * password for a known one, so timing does not tell who has an account.
 * The dummy hash is made at the first call (which therefore costs one
 * hash more).
 *
 * @throws {PasswordRefusedError} for an empty or overlong password, as verifyPassword does
 * @throws {PasswordHashingBusyError} when too many hashes are queued, as verifyPassword does
 * @throws {PasswordWorkerError} when the hashing Worker fails, as verifyPassword does
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  const normalised = acceptable(password);
  dummyHash ??= hashPassword(generatePassword()).catch((err) => {
    dummyHash = undefined; // busy: let the next call try again
    throw err;
  });
  const encoded = await dummyHash;
  verifiable(encoded); // as verifyPassword does
  await hashing.run(() =>
    workers.run({ op: "verify", password: normalised, encoded })
  );
  return false;
}

/**
 * Terminates the hashing Workers now (hashes in flight fail with a
 * PasswordWorkerError); the next hash starts new ones. Not needed for a
 * process to exit (idle Workers do not keep it alive), but it frees their
 * memory at once, e.g. at shutdown.
 */
export function closePasswordWorkers(): void {
  workers.close();
}

/**
 * True when `encoded` was hashed with parameters other than
 * ARGON2_PARAMETERS (or is not one of ours): after a successful login,
 * hash the password again and store the new hash.
 */
export function needsRehash(encoded: string): boolean {
  const p = argon2Parameters(encoded);
  return p === undefined ||
    p.memorySize !== ARGON2_PARAMETERS.memorySize ||
    p.iterations !== ARGON2_PARAMETERS.iterations ||
    p.parallelism !== ARGON2_PARAMETERS.parallelism ||
    p.saltLength !== ARGON2_PARAMETERS.saltLength ||
    p.hashLength !== ARGON2_PARAMETERS.hashLength;
}

/**
 * What is wrong with `password` as a new password, or undefined. Following
 * NIST SP 800-63B, length is what counts, not composition rules: at least
 * MIN_PASSWORD_CHARACTERS characters, at most MAX_PASSWORD_BYTES bytes,
 * not only whitespace, not one character repeated, not a well-known
 * password, and not the user's own name.
 */
export function passwordProblem(
  password: string,
  userName?: string,
): string | undefined {
  if (password === "") return "The password is empty";
  if (utf8Length(password) > MAX_PASSWORD_BYTES) {
    return `The password is too long: use at most ${MAX_PASSWORD_BYTES} bytes (UTF-8)`;
  }
  const normalised = password.normalize("NFKC");
  const characters = [...normalised];
  if (characters.length < MIN_PASSWORD_CHARACTERS) {
    return `The password is too short: use at least ${MIN_PASSWORD_CHARACTERS} characters (it has ${characters.length})`;
  }
  if (normalised.trim() === "") return "The password is only whitespace";
  if (characters.every((c) => c === characters[0])) {
    return "The password repeats one character: choose one that is harder to guess";
  }
  const folded = normalised.toLowerCase();
  if (COMMON_PASSWORDS.has(folded)) {
    return "The password is one of the most common passwords: choose one that is harder to guess";
  }
  if (
    userName !== undefined && userName !== "" &&
    folded === userName.normalize("NFKC").toLowerCase()
  ) {
    return "The password is the user name: choose one that is harder to guess";
  }
  return undefined;
}

/**
 * Characters of generated passwords: letters and digits without those read
 * alike (0 O o, 1 I l, i j), so the password can be typed from a screen.
 */
export const PASSWORD_ALPHABET =
  "23456789abcdefghkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";

/**
 * A random password for the first admin, from PASSWORD_ALPHABET (54
 * characters: 24 of them give 138 bits).
 */
export function generatePassword(length = 24): string {
  if (!Number.isInteger(length) || length < 20) {
    throw new RangeError(
      `Cannot generate a password of ${length} characters: use at least 20`,
    );
  }
  const n = PASSWORD_ALPHABET.length;
  // Bytes at or above the largest multiple of n are skipped, so every
  // character is equally likely (a plain modulo would favour the first ones).
  const limit = 256 - (256 % n);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) {
        out += PASSWORD_ALPHABET[byte % n];
      }
    }
  }
  return out;
}

/** The normalised password, or throws PasswordRefusedError. */
function acceptable(password: string): string {
  if (password === "") throw new PasswordRefusedError("empty");
  // Every UTF-16 unit is at least one UTF-8 byte: an overlong string is
  // refused without being encoded.
  if (
    password.length > MAX_PASSWORD_BYTES ||
    utf8Length(password) > MAX_PASSWORD_BYTES
  ) {
    throw new PasswordRefusedError("too long");
  }
  return password.normalize("NFKC");
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Passwords of eight characters or more at the top of published breach
 * lists, and kudurru's own name (NIST SP 800-63B asks for a blocklist; a
 * short one catches what people pick first).
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "password",
  "password1",
  "password12",
  "password123",
  "passw0rd",
  "p@ssw0rd",
  "12345678",
  "123456789",
  "1234567890",
  "123123123",
  "87654321",
  "12341234",
  "qwertyuiop",
  "qwerty123",
  "1q2w3e4r",
  "1qaz2wsx",
  "abc12345",
  "abcd1234",
  "iloveyou",
  "sunshine",
  "princess",
  "football",
  "baseball",
  "welcome1",
  "welcome123",
  "letmein1",
  "trustno1",
  "admin123",
  "administrator",
  "changeme",
  "superman",
  "kudurru1",
  "kudurru123",
]);
