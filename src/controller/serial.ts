/**
 * Zone serials: `status.serial = max(prev + 1, unix_now)`
 * (docs/design.md#zone-serials), in RFC 1982 serial-number arithmetic on
 * uint32.
 *
 * Why serial arithmetic: a secondary decides whether to transfer by comparing
 * serials the RFC 1982 way, so "greater" must mean what it means to them.
 * - Unix time passes 2^32 in February 2106; from then on `now` is taken
 *   modulo 2^32, which RFC 1982 still orders after the serials before it.
 * - A serial near 2^32 - 1 (set by hand, or imported) wraps: prev + 1 becomes
 *   0, which RFC 1982 orders after 2^32 - 1, so secondaries still transfer.
 *   Once wrapped, the clock wins again as soon as it is "greater" than the
 *   serial in serial arithmetic (less than 2^31 ahead of it).
 * - A serial more than 2^31 behind the clock is, to RFC 1982, ahead of it;
 *   we then keep counting from prev + 1 rather than jump backwards, which is
 *   what plain `max` would do with an unwrapped serial.
 */

import { serialGreater } from "../dns/serial_number.ts";

const SERIAL_SPACE = 2 ** 32;

/** `n` reduced into the uint32 serial space. */
function toSerialSpace(n: number): number {
  return ((Math.floor(n) % SERIAL_SPACE) + SERIAL_SPACE) % SERIAL_SPACE;
}

/**
 * The serial to stamp after a content change: `max(prev + 1, now)` where
 * "max" is RFC 1982 ordering; the first stamp (no prev) is `now`.
 */
export function nextSerial(
  prev: number | undefined,
  nowUnixSeconds: number,
): number {
  const now = toSerialSpace(nowUnixSeconds);
  if (prev === undefined) return now;
  const bumped = toSerialSpace(prev + 1);
  return serialGreater(now, bumped) ? now : bumped;
}
