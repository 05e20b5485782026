/**
 * A small plain-HTTP listener for the metrics and ops endpoints: Deno.serve
 * without its console banner, errors logged through our logger, and bind
 * failures turned into a message that says why and what to do.
 */
import { formatListenAddress } from "../listeners/listen_address.ts";
import type { Logger } from "../log/logger.ts";

/** A running listener. */
export interface HttpListener {
  /** Where it is bound (the real port when 0 was asked for). */
  readonly addr: Deno.NetAddr;
  /** Stops accepting, lets requests in flight finish, closes. */
  stop(): Promise<void>;
}

/** The listener could not start; `code` is the Deno error name. */
export class HttpListenerError extends Error {
  readonly code: string;

  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "HttpListenerError";
    this.code = code;
  }
}

export interface HttpListenerOptions {
  /** What it serves, for messages ("metrics", "ops"). */
  name: string;
  /** The setting that holds its address, for messages ("listeners.metrics.address"). */
  setting: string;
  hostname: string;
  port: number;
  handler: (request: Request) => Response | Promise<Response>;
  logger: Logger;
}

/**
 * The 405 answer for a method other than GET and HEAD, or undefined for
 * those two. Handlers answer HEAD with the very Response GET gets: Deno.serve
 * sends its status and headers, content-length included, and drops the body,
 * which is what RFC 9110 §9.3.2 asks. A null body would send
 * "content-length: 0" instead, a length GET does not have.
 */
export function rejectUnlessGetOrHead(request: Request): Response | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  return new Response("method not allowed\n", {
    status: 405,
    headers: { allow: "GET, HEAD" },
  });
}

/** Starts the listener; throws HttpListenerError when it cannot bind. */
export function listenHttp(opts: HttpListenerOptions): HttpListener {
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: opts.hostname,
      port: opts.port,
      onListen: () => {}, // no console banner; the caller logs
      onError(error) {
        opts.logger.error(`${opts.name} request failed`, { error });
        return new Response("internal error\n", { status: 500 });
      },
    }, opts.handler);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    throw new HttpListenerError(
      describeHttpBindError(opts, e.name, e.message),
      e.name,
      { cause: err },
    );
  }
  return {
    addr: server.addr,
    stop: () => server.shutdown(),
  };
}

/** The message for a failed bind of the `name` listener. */
export function describeHttpBindError(
  opts: Pick<HttpListenerOptions, "name" | "setting" | "hostname" | "port">,
  code: string,
  detail: string,
): string {
  const where = formatListenAddress(opts);
  const what = `Cannot listen on ${where} for ${opts.name}`;
  switch (code) {
    case "PermissionDenied":
      return `${what}: permission denied; ports below 1024 need root or ` +
        `CAP_NET_BIND_SERVICE (set ${opts.setting} to a higher port)`;
    case "NotCapable":
      return `${what}: Deno permission denied; run with --allow-net`;
    case "AddrInUse":
      return `${what}: address in use; another process (another kudurru?) ` +
        `is using it (set ${opts.setting} to a free port)`;
    case "AddrNotAvailable":
      return `${what}: address not available; it is not an address of this ` +
        `host (set ${opts.setting} to 0.0.0.0 or [::] to listen on every address)`;
    default:
      return `${what}: ${detail}`;
  }
}
