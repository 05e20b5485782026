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

/**
 * The request's path, or undefined when its URL does not parse: Deno.serve
 * builds the URL from the Host header, which a client may send malformed
 * ("a b", "x:99999"), and `new URL` then throws; unguarded, every such
 * request was a 500 and an ERROR line of the client's text in the log.
 */
export function requestPath(request: Request): string | undefined {
  try {
    return new URL(request.url).pathname;
  } catch {
    return undefined;
  }
}

/** The answer to a request whose URL does not parse (requestPath). */
export function badRequestUrl(): Response {
  return new Response("bad request: the Host header does not form a URL\n", {
    status: 400,
  });
}

/** First and longest pause before a listener that failed is started again. */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 10_000;

/**
 * Starts the listener; throws HttpListenerError when it cannot bind. When
 * its accept loop fails later (out of file descriptors: Deno.serve then
 * ends, and its rejection would end the process), it is logged and started
 * again on the same address, with growing pauses while that fails.
 */
export function listenHttp(opts: HttpListenerOptions): HttpListener {
  let server = serveOn(opts, opts.port);
  const addr = server.addr;
  let stopped = false;
  let pause = RESTART_FIRST_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const watch = (running: Deno.HttpServer<Deno.NetAddr>) => {
    running.finished.catch((error) => {
      if (stopped) return;
      opts.logger.error(
        `The ${opts.name} listener on ${
          formatListenAddress(opts)
        } stopped; starting it again`,
        { error },
      );
      restartLater();
    });
  };
  const restartLater = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (stopped) return;
      try {
        server = serveOn(opts, addr.port);
        watch(server);
        pause = RESTART_FIRST_MS;
        opts.logger.info(`The ${opts.name} listener is back`, {
          address: formatListenAddress({ ...opts, port: addr.port }),
        });
      } catch (error) {
        opts.logger.warn(`Cannot start the ${opts.name} listener yet`, {
          error,
          retryMs: pause,
        });
        pause = Math.min(pause * 2, RESTART_MAX_MS);
        restartLater();
      }
    }, pause);
  };
  watch(server);
  return {
    addr,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await server.shutdown().catch(() => {});
    },
  };
}

function serveOn(
  opts: HttpListenerOptions,
  port: number,
): Deno.HttpServer<Deno.NetAddr> {
  try {
    return Deno.serve({
      hostname: opts.hostname,
      port,
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
