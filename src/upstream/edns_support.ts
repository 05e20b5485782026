/**
 * Whether a server takes EDNS (RFC 6891). A server that answers FORMERR or
 * NOTIMP without an OPT record to a query with one does not understand
 * EDNS (old middleboxes, some appliances): §7 has the requester ask again
 * without it. askServer does so at once, within the attempt; once that
 * works, the server is asked without EDNS for a while and then with it
 * again (a fixed firmware, a middlebox gone), as Unbound's infra cache does.
 */

/** How long a server that refused EDNS is asked without it (ms). */
export const NO_EDNS_FOR_MS = 15 * 60_000;

/** Whether answers with this RCODE, without an OPT record, refuse EDNS. */
export function refusesEdns(rcode: number): boolean {
  return rcode === FORMERR || rcode === NOTIMP;
}

const FORMERR = 1;
const NOTIMP = 4;

/** What one server was seen to do with EDNS. */
export class EdnsSupport {
  readonly #now: () => number;
  #noEdnsUntil = -Infinity;

  /** @param now the clock (ms) */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** Whether to send an OPT record to the server now. */
  get useEdns(): boolean {
    return this.#now() >= this.#noEdnsUntil;
  }

  /** The server answered without EDNS what it refused with it. */
  refused(): void {
    this.#noEdnsUntil = this.#now() + NO_EDNS_FOR_MS;
  }
}
