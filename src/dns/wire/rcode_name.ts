/**
 * Response code names as dig prints them, for logs, the query log and the
 * CLI (IANA "DNS RCODEs"; 16 is BADVERS with EDNS).
 */

const RCODE_NAMES = [
  "NOERROR",
  "FORMERR",
  "SERVFAIL",
  "NXDOMAIN",
  "NOTIMP",
  "REFUSED",
  "YXDOMAIN",
  "YXRRSET",
  "NXRRSET",
  "NOTAUTH",
  "NOTZONE",
  "DSOTYPENI",
];
const BADVERS = 16;

/** "NXDOMAIN"; "RCODE12" for a code with no name; "-" when nothing was sent (-1). */
export function rcodeName(rcode: number): string {
  if (rcode < 0) return "-";
  if (rcode === BADVERS) return "BADVERS";
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

/** The code of an rcode name (any case) or of a number; undefined otherwise. */
export function rcodeFromName(text: string): number | undefined {
  const upper = text.toUpperCase();
  if (upper === "BADVERS") return BADVERS;
  const at = RCODE_NAMES.indexOf(upper);
  if (at >= 0) return at;
  const code = /^(?:RCODE)?(0|[1-9][0-9]{0,3})$/.exec(upper)?.[1];
  return code !== undefined && Number(code) <= 4095 ? Number(code) : undefined;
}
