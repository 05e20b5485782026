/**
 * The credentials of one dnsdist start: the webserver password, the API key
 * and the console key, random each time `kudurru edge run` renders a
 * configuration. The supervisor keeps the plain API key in memory (for the
 * readiness probe); the configuration holds only the password's and the
 * key's scrypt hashes, in the format dnsdist 1.7's hashPassword() makes
 * (dnsdist docs, "Built-in webserver", Credentials), so the file on disk
 * does not give the API away.
 */
import { Buffer } from "node:buffer";
import { randomBytes, scryptSync } from "node:crypto";

export interface EdgeCredentials {
  /** For the dashboard (HTTP basic auth, any user name). */
  password: string;
  passwordHash: string;
  /** For /api/v1 (header X-API-Key). */
  apiKey: string;
  apiKeyHash: string;
  /** setKey(): 32 random bytes, base64, for `dnsdist -c` (libsodium secretbox). */
  consoleKey: string;
}

/** dnsdist's defaults: N = 2^10, r = 8, p = 1, 16 bytes of salt, 32 of hash. */
const SCRYPT = { ln: 10, r: 8, p: 1, saltBytes: 16, hashBytes: 32 } as const;

/** `$scrypt$ln=10,p=1,r=8$<salt>$<hash>`, as dnsdist's hashPassword() writes it. */
export function hashPassword(
  plain: string,
  salt: Uint8Array = randomBytes(SCRYPT.saltBytes),
): string {
  const hash = scryptSync(plain, salt, SCRYPT.hashBytes, {
    N: 2 ** SCRYPT.ln,
    r: SCRYPT.r,
    p: SCRYPT.p,
  });
  return `$scrypt$ln=${SCRYPT.ln},p=${SCRYPT.p},r=${SCRYPT.r}$${
    Buffer.from(salt).toString("base64")
  }$${hash.toString("base64")}`;
}

/** Random text for a password or key: 32 bytes, base64url (no quotes, no slashes). */
function randomText(): string {
  return randomBytes(32).toString("base64url");
}

/** New random credentials. */
export function generateCredentials(): EdgeCredentials {
  const password = randomText();
  const apiKey = randomText();
  return {
    password,
    passwordHash: hashPassword(password),
    apiKey,
    apiKeyHash: hashPassword(apiKey),
    consoleKey: randomBytes(32).toString("base64"),
  };
}
