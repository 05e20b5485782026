/** Octets as lowercase hex text, two digits each ("00011800"). */
export function hexOf(octets: Uint8Array): string {
  let out = "";
  for (const octet of octets) out += HEX_BYTES[octet];
  return out;
}

/** The two hex digits of each octet value, by value. */
export const HEX_BYTES: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);
