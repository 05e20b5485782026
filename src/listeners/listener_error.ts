/**
 * Startup failures of the DNS listeners, with a message that says why and
 * what to do about it (the operator reads this and nothing else).
 */
import type { Transport } from "../pipeline/handler.ts";
import { parseListenAddress } from "./listen_address.ts";

/** A DNS listener could not start; startup stops. */
export class ListenerError extends Error {
  /** The OS or Deno error name, such as "AddrInUse" or "PermissionDenied". */
  readonly code: string;

  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ListenerError";
    this.code = code;
  }
}

/**
 * The message for a failed bind. `address` is as configured ("0.0.0.0:53"),
 * `code` the error's name in the worker (`Deno.errors.*`), `detail` its text.
 */
export function describeBindError(
  address: string,
  transport: Transport,
  code: string,
  detail: string,
): string {
  const what = `Cannot listen on ${address}/${transport}`;
  switch (code) {
    case "PermissionDenied":
      return `${what}: permission denied; ports below 1024 need root or ` +
        `CAP_NET_BIND_SERVICE (or set listeners.dns to a port such as 5353)`;
    case "NotCapable":
      return `${what}: Deno permission denied; run with --allow-net ` +
        `(and --unstable-net for UDP)`;
    case "AddrInUse":
      return `${what}: address in use; another DNS server ` +
        `(systemd-resolved, dnsmasq, another kudurru) is using it`;
    case "AddrNotAvailable":
      return `${what}: address not available; it is not an address of this ` +
        `host (use 0.0.0.0 or [::] to listen on every address)`;
    default:
      return `${what}: ${detail}`;
  }
}

/** A configured listener, as listeners.ts takes it. */
interface ConfiguredListener {
  address: string;
  protocols: readonly Transport[];
}

/**
 * `error` reworded when it comes from the usual dual-stack clash: the
 * configuration lists both `0.0.0.0:P` and `[::]:P` for one protocol, and
 * on this system (Linux's default `bindv6only=0`) a socket on `[::]` also
 * takes IPv4, so whichever binds second finds the port "in use" by kudurru
 * itself, not by another DNS server. Other errors come back unchanged.
 */
export function explainDualStackClash(
  listeners: readonly ConfiguredListener[],
  error: unknown,
): unknown {
  if (!(error instanceof ListenerError) || error.code !== "AddrInUse") {
    return error;
  }
  for (const v4 of listeners) {
    const a = parseListenAddress(v4.address);
    if (a.hostname !== "0.0.0.0" || a.port === 0) continue;
    const v6 = listeners.find((l) => {
      const b = parseListenAddress(l.address);
      return b.hostname === "::" && b.port === a.port &&
        l.protocols.some((p) => v4.protocols.includes(p));
    });
    if (v6 === undefined) continue;
    return new ListenerError(
      `Cannot listen on both ${v4.address} and ${v6.address}: on this ` +
        `system a socket on [::] also takes IPv4 (dual-stack), so the two ` +
        `collide; list only "${v6.address}" in listeners.dns to serve IPv4 ` +
        `and IPv6 clients (IPv4 clients then arrive as ::ffff: addresses)`,
      error.code,
      { cause: error },
    );
  }
  return error;
}
