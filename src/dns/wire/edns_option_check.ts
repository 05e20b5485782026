/**
 * EDNS options a server must answer FORMERR to (RFC 6891 leaves option
 * contents to their own RFCs, and two of those say so): a COOKIE option
 * of a length no cookie has (RFC 7873 §5.2.2), and a malformed EDNS
 * Client Subnet option (RFC 7871 §7.1.1). BIND answers both FORMERR.
 */
import { clientSubnetProblem } from "./client_subnet.ts";
import { EDNS_OPTION } from "./constants.ts";
import type { EdnsOption } from "./query.ts";

/** A client cookie alone (RFC 7873 §4). */
const CLIENT_COOKIE_OCTETS = 8;
/** With a server cookie: 8 more octets at least, 32 more at most (§4). */
const MIN_COOKIES_OCTETS = 16;
const MAX_COOKIES_OCTETS = 40;

/** Why one of `options` makes the query malformed, or undefined. */
export function ednsOptionsProblem(
  options: readonly EdnsOption[],
): string | undefined {
  for (const option of options) {
    if (option.code === EDNS_OPTION.COOKIE) {
      const length = option.data.length;
      const valid = length === CLIENT_COOKIE_OCTETS ||
        (length >= MIN_COOKIES_OCTETS && length <= MAX_COOKIES_OCTETS);
      if (!valid) return `COOKIE option of ${length} octets`;
    } else if (option.code === EDNS_OPTION.CLIENT_SUBNET) {
      const problem = clientSubnetProblem(option.data);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
