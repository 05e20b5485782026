/**
 * Serial number arithmetic (RFC 1982) on the uint32 SOA serial: how a
 * secondary decides that a zone changed, so how every part of kudurru that
 * compares serials must compare them.
 */

const HALF_SPACE = 2 ** 31;

/** True when serial `a` is greater than `b` under RFC 1982 §3.2 (uint32). */
export function serialGreater(a: number, b: number): boolean {
  if (a === b) return false;
  return (a < b && b - a > HALF_SPACE) || (a > b && a - b < HALF_SPACE);
}
