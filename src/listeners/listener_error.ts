/**
 * Startup failures of the DNS listeners, with a message that says why and
 * what to do about it (the operator reads this and nothing else).
 */
import type { Transport } from "../pipeline/handler.ts";

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
