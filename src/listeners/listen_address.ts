/**
 * Parses the `listeners.dns[].address` strings of the config ("0.0.0.0:53",
 * "[::1]:5353") into what `Deno.listen` and `Deno.listenDatagram` take.
 */

/** A host and port ready for `Deno.listen` (IPv6 without brackets). */
export interface ListenAddress {
  hostname: string;
  port: number;
}

/**
 * Splits "host:port" or "[v6]:port". Throws when the text is not one of
 * those; the config schema has already checked it, so this is a last guard.
 */
export function parseListenAddress(text: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new Error(
      `Cannot parse listener address "${text}": expected "host:port", such as "0.0.0.0:53" or "[::]:53"`,
    );
  }
  return { hostname: m[1] ?? m[2]!, port };
}

/** The inverse of parseListenAddress: brackets IPv6 hosts. */
export function formatListenAddress(addr: ListenAddress): string {
  const host = addr.hostname.includes(":")
    ? `[${addr.hostname}]`
    : addr.hostname;
  return `${host}:${addr.port}`;
}
