/**
 * Encrypted DNS listeners the configuration accepts but this version does
 * not serve yet: `listeners.dot`, `doh`, `doq` and `doh3` are in the schema
 * (so configurations written for later versions load), but nothing listens
 * on them. Configuring one must not pass in silence: a client pointed at
 * it would get "connection refused" while every signal said all was well.
 */
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";

/** The listener kinds not served yet, and what each is. */
const UNSERVED = {
  dot: "DNS-over-TLS",
  doh: "DNS-over-HTTPS",
  doq: "DNS-over-QUIC",
  doh3: "DNS-over-HTTP/3",
} as const;

/** One line per configured kind that nothing serves; empty when none. */
export function unservedListeners(
  listeners: Config["listeners"],
): { kind: string; what: string; addresses: string[] }[] {
  const found = [];
  for (const [kind, what] of Object.entries(UNSERVED)) {
    const list = listeners[kind as keyof typeof UNSERVED];
    if (list.length === 0) continue;
    found.push({ kind, what, addresses: list.map((l) => l.address) });
  }
  return found;
}

/** Warns once per configured listener kind this version does not serve. */
export function warnUnservedListeners(
  listeners: Config["listeners"],
  logger: Logger,
): void {
  for (const { kind, what, addresses } of unservedListeners(listeners)) {
    logger.warn(
      `listeners.${kind} is configured, but this version of kudurru does not serve ${what} yet: nothing listens on ${
        addresses.join(", ")
      }`,
      {
        hint:
          "point clients at a listeners.dns address, or put a TLS-terminating proxy such as dnsdist in front of it",
      },
    );
  }
}
