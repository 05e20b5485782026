/**
 * Time-based one-time passwords (RFC 6238) as authenticator apps make
 * them: HMAC-SHA1, 6 digits, 30-second steps; the only settings every app
 * honours. A code is accepted for its own step and one step either side
 * (clock drift and typing time), and only once: the caller stores the step
 * verifyTotp returns and passes it back next time, and any code of that
 * step or an earlier one is refused, so a code seen over a shoulder or in
 * a log cannot be replayed.
 *
 * The secret is stored sealed (sealed.ts, purpose "totpSecret"), never in
 * clear.
 */
import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import { HOTP, Secret, TOTP } from "otpauth";

/** Seconds per time step. */
export const TOTP_PERIOD_SECONDS = 30;

/** Digits of a code. */
export const TOTP_DIGITS = 6;

/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;

/** Bytes of a new secret (160 bits, as RFC 4226 recommends for HMAC-SHA1). */
export const TOTP_SECRET_BYTES = 20;

const ALGORITHM = "SHA1";

/** A new random secret, in unpadded base32 (32 characters) as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: TOTP_SECRET_BYTES }).base32;
}

/**
 * The otpauth:// URI of `secret` for an authenticator app (shown as a QR
 * code), labelled `issuer:account`.
 *
 * @throws {Error} when `secret` is not base32 or `account` is empty
 */
export function totpUri(
  secret: string,
  account: string,
  issuer = "kudurru",
): string {
  if (account === "") {
    throw new Error("Cannot make a TOTP URI without an account name");
  }
  return new TOTP({
    issuer,
    label: account,
    secret: secretOf(secret),
    algorithm: ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

/** The time step of `now` (milliseconds since the epoch). */
export function totpStep(now: number): number {
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The time step `code` belongs to, when it is valid at `now` and newer
 * than `lastUsedStep`; otherwise undefined. Spaces in the code are
 * ignored ("123 456"). Store the returned step as the new `lastUsedStep`.
 *
 * @param lastUsedStep the step of the last code accepted for this secret, if any
 * @throws {Error} when `secret` is not base32 (a damaged stored secret, not a wrong code)
 */
export function verifyTotp(
  code: string,
  secret: string,
  lastUsedStep: number | undefined,
  now: number = Date.now(),
): number | undefined {
  const key = secretOf(secret);
  // Bounded before any work: a code is a few characters.
  if (code.length > 4 * TOTP_DIGITS) return undefined;
  const digits = code.replace(/\s+/g, "");
  if (!new RegExp(`^[0-9]{${TOTP_DIGITS}}$`).test(digits)) return undefined;
  const given = Buffer.from(digits, "ascii");
  const current = totpStep(now);
  let accepted: number | undefined;
  // Every step in the window is checked, with no early exit. The highest
  // match wins: should one code match two steps, both are then spent.
  for (
    let step = current - TOTP_WINDOW;
    step <= current + TOTP_WINDOW;
    step++
  ) {
    const expected = HOTP.generate({
      secret: key,
      algorithm: ALGORITHM,
      digits: TOTP_DIGITS,
      counter: step,
    });
    const match = timingSafeEqual(given, Buffer.from(expected, "ascii"));
    if (
      match && step >= 0 && (lastUsedStep === undefined || step > lastUsedStep)
    ) {
      accepted = step;
    }
  }
  return accepted;
}

function secretOf(base32: string): Secret {
  // Stricter than otpauth, which drops spaces and folds case: secrets are
  // stored as newTotpSecret wrote them, so anything else is damage, and a
  // short one would be guessable.
  if (!/^[A-Z2-7]{16,}=*$/.test(base32)) {
    throw new Error(
      "Cannot use the TOTP secret: it is not base32 of at least 80 bits; set up TOTP again",
    );
  }
  return Secret.fromBase32(base32);
}
