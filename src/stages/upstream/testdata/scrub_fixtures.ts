/**
 * Records our presentation-format encoder will not write (TSIG and TKEY are
 * meta-types, RRSIG has no text form here, classes other than IN), for the
 * tests of what an upstream's answer may carry (answer_scrub.ts).
 */
import { readTtlOffsets } from "../../../dns/wire/ttl_offsets.ts";

/**
 * Gives record `index` (over all sections, the OPT record not counted)
 * another type and class, in place: write it as any record of the same
 * RDATA, then make it what the test needs.
 */
export function retype(
  index: number,
  type: number,
  cls: number,
): (wire: Uint8Array) => void {
  return (wire) => {
    const at = readTtlOffsets(wire).offsets[index]! - 4;
    wire.set([type >> 8, type & 0xff, cls >> 8, cls & 0xff], at);
  };
}

/** An RRSIG (RFC 3597 text) over `covered` at `owner`, signed by the root. */
export function rrsig(owner: string, covered: number): string {
  const rdata = `${covered.toString(16).padStart(4, "0")}0d02` +
    "0000012c" + "00000000" + "00000000" + "3039" + "00" + "aabb";
  return `${owner} 300 IN TYPE46 \\# ${rdata.length / 2} ${rdata}`;
}
