/**
 * DNS over HTTPS (RFC 8484): GET with `?dns=` and POST of
 * application/dns-message, over HTTP/2 and HTTP/1.1 (ALPN) on
 * `Deno.serve`, or over plain HTTP behind a trusted reverse proxy that
 * terminates TLS. Each request's query goes to the QueryHandler as a
 * `doh` client, with the client ID of its path (client_id.ts); the answer
 * goes back as a 200 whatever its RCODE (§4.2.1), with a Cache-Control
 * lifetime no longer than its records' (cache_control.ts).
 *
 * `Deno.serve` is used bare rather than through hono: one endpoint needs
 * no router, and the per-request work is cut to what RFC 8484 asks (the
 * URL is not parsed into an object, headers are not read for GET over
 * TLS). Bad requests get a 4xx with a one-line reason, counted in
 * `dohBadRequest`; nothing is logged per request.
 *
 * Certificates: Deno.serve takes its pair once, so a new pair starts a
 * second server on the same port (SO_REUSEPORT, which needs
 * `--unstable-net`) and the old one shuts down gracefully. See
 * setCertificate for the window this leaves.
 *
 * Limits Deno.serve sets and has no knob for: request headers over 16 KiB
 * get 431 over HTTP/2 (hyper's header list limit), and a request head
 * over ~64 KiB gets 400 over HTTP/1.1 (20 KiB passes); neither reaches
 * this handler, so neither is counted. There is no connection cap and no
 * idle timeout for a connection that sends nothing, and a failed TLS
 * handshake is not reported (`tlsHandshakeFailed` stays 0 for DoH).
 *
 * Measured on loopback (2-core VM, h2load -c 10 -m 10 GET, one 29-octet
 * query, a handler answering at once): ~31-33 µs of CPU per request,
 * where a bare Deno.serve returning the same bytes takes ~29-31 µs and
 * Unbound 1.17's DoH ~18 µs; POST ~41-49 µs (the body read).
 */
import type { ClientInfo, QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { CertificatePair, SocketCounters } from "./worker_messages.ts";
import { clientIdFromPath } from "./client_id.ts";
import { cacheControl } from "./cache_control.ts";
import {
  DNS_MESSAGE,
  isDnsMessageType,
  postLength,
  queryFromGet,
  type Refusal,
  urlParts,
} from "./doh_request.ts";
import { DohBodies } from "./doh_body.ts";
import { noAnswerServfail } from "./no_answer.ts";
import { stopAnswer } from "./stop_answer.ts";
import { TrustedProxies } from "./trusted_proxies.ts";

/** The endpoint RFC 8484 §3 uses in its examples, and most clients assume. */
export const DOH_PATH = "/dns-query";
/**
 * Most DoH queries one listener waits on at once (answers pending, mostly
 * on upstreams); beyond, queries go to the handler marked `overloaded`,
 * as TCP's do (tcp.ts TCP_MAX_IN_FLIGHT).
 */
export const DOH_MAX_IN_FLIGHT = 1000;
/** A POST body not complete after this long gets 408 (doh_body.ts). */
export const DOH_BODY_TIMEOUT_MS = 10_000;
/** How long a stop waits for answers when it is given no `answerWithinMs`. */
export const DOH_STOP_GRACE_MS = 5_000;
/**
 * After a stop's SERVFAILs went out, how long it waits for the last
 * connections to close before it gives up on them (as TCP gives its
 * SERVFAILs a second to be written).
 */
export const DOH_CLOSE_GRACE_MS = 1_000;
/**
 * Longest a certificate change waits for the old server's requests in
 * flight (answers that wait on upstreams take seconds) before it gives up
 * on it: new connections have the new pair long before.
 */
export const DOH_RETIRE_WAIT_MS = 30_000;

export interface DohServerOptions {
  hostname: string;
  /** 0 picks an ephemeral port. */
  port: number;
  handler: QueryHandler;
  /** Incremented in place; the owner reads and resets them. */
  counters: SocketCounters;
  logger: Logger;
  /** The endpoint; `path/<client ID>` is served too. @default "/dns-query" */
  path?: string;
  /** Served over TLS (h2 and http/1.1); absent, plain HTTP for a proxy. */
  certificate?: CertificatePair;
  /**
   * Peers whose X-Forwarded-For is believed: addresses or CIDR prefixes.
   * Required (non-empty) without `certificate`: plain HTTP is served to
   * these peers only, every other one gets 403.
   */
  trustedProxies?: readonly string[];
  /** Queries waited on at once. @default 1000 */
  maxInFlight?: number;
  /**
   * Share the port with other listeners that set it (SO_REUSEPORT): the
   * kernel spreads connections over them. Without it a fixed port must be
   * free of every other socket, reusePort ones included. @default false
   */
  reusePort?: boolean;
  /** @default 10000 */
  bodyTimeoutMs?: number;
}

/** A bound DoH listener. */
export interface DohServer {
  readonly addr: Deno.NetAddr;
  /**
   * Serves `pair` to new connections: a second server binds the port
   * beside the first, which then shuts down gracefully (its listening
   * socket closes at once, its requests in flight finish). Resolves once
   * the old server finished, or after DOH_RETIRE_WAIT_MS at most; new
   * connections get `pair` once the event loop has turned (the old
   * listening socket closes then). Rejects (and the old pair
   * stays) when Deno cannot load `pair`, or on a plain HTTP listener.
   *
   * The window: connections the old server accepted but had no request
   * from yet (in their TLS handshake, or the request not arrived) are
   * closed by its shutdown, and the kernel resets those still waiting in
   * its accept queue (unless `net.ipv4.tcp_migrate_req` is 1, Linux 5.14+,
   * which hands them to the new socket). Idle HTTP/2 connections get
   * GOAWAY and idle HTTP/1.1 ones close, which clients retry on a new
   * connection. Measured with testdata/doh_rotation_probe.ts (4 clients
   * each opening a new connection per request, ~1,200 a second): 69 of
   * ~5,170 failed over 20 changes, ~3.5 per change; none without changes.
   */
  setCertificate(pair: CertificatePair): Promise<void>;
  /**
   * Stops accepting, answers the queries in flight, closes. Answers not
   * ready within `answerWithinMs` (default DOH_STOP_GRACE_MS) are sent as
   * SERVFAIL (stop_answer.ts). A POST body still arriving gets 503 at once
   * (Deno's shutdown ends its read). Connections still open
   * DOH_CLOSE_GRACE_MS after that are given up on (logged once).
   */
  stop(answerWithinMs?: number): Promise<void>;
}

/** A query whose answer is a promise still. */
interface Waiting {
  query: Uint8Array;
  head: boolean;
  respond: (response: Response) => void;
  /** Answered already (SERVFAIL at a stop's deadline): ignore the late one. */
  answered: boolean;
}

/** First and longest pause before a server whose accept loop failed is started again. */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 10_000;

const ALLOW = "GET, HEAD, POST";

/**
 * Binds (throws the `Deno.errors.*` error when it cannot; TypeError for
 * options that cannot work) and serves.
 */
export function serveDoh(opts: DohServerOptions): DohServer {
  const { handler, counters, logger, hostname } = opts;
  const base = opts.path ?? DOH_PATH;
  const proxies = new TrustedProxies(opts.trustedProxies ?? []);
  const plain = opts.certificate === undefined;
  if (plain && proxies.empty) {
    throw new TypeError(
      "a DoH listener without a certificate serves plain HTTP only to " +
        "trusted proxies, and none is set",
    );
  }
  const maxInFlight = opts.maxInFlight ?? DOH_MAX_IN_FLIGHT;

  /** Handler promises not settled yet (the overload budget). */
  let inFlight = 0;
  const waiting = new Set<Waiting>();
  const bodies = new DohBodies(opts.bodyTimeoutMs ?? DOH_BODY_TIMEOUT_MS);
  let stopping = false;

  // ---- requests ----------------------------------------------------------

  function serveRequest(
    request: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ): Response | Promise<Response> {
    const peer = info.remoteAddr;
    const method = request.method;
    const head = method === "HEAD";
    if (plain && !proxies.trusts(peer.hostname)) {
      return refuse(
        { status: 403, reason: "not a trusted proxy" },
        head,
        request,
      );
    }
    const url = request.url;
    const parts = urlParts(url);
    const clientId = parts === undefined
      ? null
      : parts.path === base
      ? undefined
      : clientIdFromPath(parts.path, base);
    if (parts === undefined || clientId === null) {
      return refuse(
        { status: 404, reason: "no DoH endpoint here" },
        head,
        request,
      );
    }
    if (method === "GET" || head) {
      // HEAD as GET, its headers without the body (RFC 9110 §9.3.2).
      const query = queryFromGet(url, parts.queryStart);
      if (!(query instanceof Uint8Array)) return refuse(query, head, request);
      return answer(query, clientOf(request, peer, clientId), head);
    }
    if (method === "POST") {
      if (!isDnsMessageType(request.headers.get("content-type"))) {
        return refuse(
          {
            status: 415,
            reason: `POST takes Content-Type: ${DNS_MESSAGE} (RFC 8484 §4.1)`,
          },
          false,
          request,
        );
      }
      const length = postLength(request.headers.get("content-length"));
      if (typeof length === "object") return refuse(length, false, request);
      return bodies.read(request, length).then((body) => {
        // A stop cuts bodies still arriving; Deno's shutdown may fail
        // their read before the cut does.
        if (
          body === "stopping" || (stopping && !(body instanceof Uint8Array))
        ) {
          return unavailable(false);
        }
        if (!(body instanceof Uint8Array)) return refuse(body, false);
        return answer(body, clientOf(request, peer, clientId), false);
      });
    }
    return refuse(
      { status: 405, reason: `DoH takes ${ALLOW}` },
      false,
      request,
    );
  }

  function clientOf(
    request: Request,
    peer: Deno.NetAddr,
    clientId: string | undefined,
  ): ClientInfo {
    let address = peer.hostname;
    let port = peer.port;
    // Over TLS without proxies no header is read: the peer is the client.
    if (!proxies.empty && proxies.trusts(address)) {
      const forwarded = request.headers.get("x-forwarded-for");
      if (forwarded !== null) {
        address = proxies.clientOf(address, forwarded);
        port = 0; // the client's port is not forwarded
      }
    }
    const client: ClientInfo = { address, port, transport: "doh" };
    if (clientId !== undefined) client.clientId = clientId;
    if (inFlight >= maxInFlight) client.overloaded = true;
    return client;
  }

  function answer(
    query: Uint8Array,
    client: ClientInfo,
    head: boolean,
  ): Response | Promise<Response> {
    counters.queries++;
    let reply: Promise<Uint8Array | null> | Uint8Array | null;
    try {
      reply = handler.handle(query, client);
    } catch (error) {
      logger.error("Query handler threw", { error });
      reply = null;
    }
    if (!(reply instanceof Promise)) return dnsResponse(query, reply, head);
    inFlight++;
    const pending = reply;
    return new Promise<Response>((respond) => {
      const entry: Waiting = { query, head, respond, answered: false };
      waiting.add(entry);
      pending.then((r) => settle(entry, r), (error) => {
        logger.error("Query handler threw", { error });
        settle(entry, null);
      });
    });
  }

  function settle(entry: Waiting, reply: Uint8Array | null) {
    inFlight--;
    if (entry.answered) return;
    entry.answered = true;
    waiting.delete(entry);
    entry.respond(dnsResponse(entry.query, reply, entry.head));
  }

  /**
   * A 200 carrying `reply`, or SERVFAIL when the pipeline sent nothing.
   * For HEAD no body, and its length said outright: Deno.serve would
   * drop a body over HTTP/1.1, but over HTTP/2 it sends it, and the
   * client resets the stream (PROTOCOL_ERROR; curl 7.88).
   */
  function dnsResponse(
    query: Uint8Array,
    reply: Uint8Array | null,
    head: boolean,
  ): Response {
    const message = reply ?? noAnswerServfail(query);
    if (message === undefined) {
      return refuse({ status: 400, reason: "not a DNS query" }, head);
    }
    if (head) {
      return new Response(null, {
        headers: {
          "content-type": DNS_MESSAGE,
          "cache-control": cacheControl(message),
          "content-length": String(message.length),
        },
      });
    }
    // Answers are never SharedArrayBuffer views (the pipeline's own arrays).
    return new Response(message as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": DNS_MESSAGE,
        "cache-control": cacheControl(message),
      },
    });
  }

  /**
   * The 4xx for `refusal`, counted; for HEAD without its body (see
   * dnsResponse). With `request`, sent once the rest of its body is read
   * and dropped (DohBodies.drain says why).
   */
  function refuse(refusal: Refusal, head: boolean): Response;
  function refuse(
    refusal: Refusal,
    head: boolean,
    request: Request,
  ): Response | Promise<Response>;
  function refuse(
    refusal: Refusal,
    head: boolean,
    request?: Request,
  ): Response | Promise<Response> {
    counters.dohBadRequest++;
    const init = refusal.status === 405
      ? { status: 405, headers: { allow: ALLOW } }
      : { status: refusal.status };
    const response = new Response(head ? null : refusal.reason + "\n", init);
    if (request === undefined || request.body === null) return response;
    return bodies.drain(request).then(() => response);
  }

  // ---- servers -----------------------------------------------------------

  let pair = opts.certificate;
  if (!(opts.reusePort ?? false) && opts.port !== 0) {
    // SO_REUSEPORT would let the bind join another process's sockets on
    // this port (same user): bound alone first, it fails as in use.
    Deno.listen({ hostname, port: opts.port }).close();
  }
  let current = listen(opts.port, pair);
  const addr = current.addr;
  /** Servers shutting down (a replaced certificate), until they finish. */
  const retiring = new Map<Deno.HttpServer<Deno.NetAddr>, Promise<void>>();
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let restartPause = RESTART_FIRST_MS;
  watch(current);

  function listen(
    port: number,
    certificate: CertificatePair | undefined,
  ): Deno.HttpServer<Deno.NetAddr> {
    return Deno.serve({
      hostname,
      port,
      // Always: a new certificate binds a second server beside this one.
      reusePort: true,
      ...(certificate !== undefined &&
        { cert: certificate.cert, key: certificate.key }),
      onListen: () => {}, // no console banner; the owner logs
      onError(error) {
        logger.error("DoH request failed", { error });
        return new Response("internal error\n", { status: 500 });
      },
    }, serveRequest);
  }

  /**
   * An accept loop that fails (out of file descriptors) ends Deno.serve,
   * and its rejection would end the process: logged, and the server is
   * started again on the same port, with growing pauses while that fails.
   */
  function watch(server: Deno.HttpServer<Deno.NetAddr>) {
    server.finished.catch((error) => {
      if (stopping || server !== current) return;
      logger.error("DoH listener stopped; starting it again", { error });
      restartLater();
    });
  }

  function restartLater() {
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      try {
        current = listen(addr.port, pair);
        watch(current);
        restartPause = RESTART_FIRST_MS;
        logger.info("DoH listener is back");
      } catch (error) {
        logger.warn("Cannot start the DoH listener yet", {
          error,
          retryMs: restartPause,
        });
        restartPause = Math.min(restartPause * 2, RESTART_MAX_MS);
        restartLater();
      }
    }, restartPause);
  }

  /**
   * Shuts `server` down gracefully: its listening socket closes at once,
   * its requests in flight finish. stop() waits for it too.
   */
  function retire(server: Deno.HttpServer<Deno.NetAddr>): Promise<void> {
    const done = server.shutdown().catch(() => {});
    retiring.set(server, done);
    done.then(() => retiring.delete(server));
    return done;
  }

  /**
   * Gives up on the servers still shutting down: a connection whose
   * request body never came whole keeps its server from finishing until
   * the client closes it, and Deno.serve can neither close one connection
   * nor abort a server once shutdown() began (the abort throws
   * BadResource from inside Deno, uncaught). Unref'd, they no longer keep
   * the worker alive, and end when their clients leave.
   */
  function abandonRetiring(why: string) {
    if (retiring.size === 0) return;
    logger.warn(`DoH listener ${why} with connections still open`, {
      servers: retiring.size,
    });
    for (const server of retiring.keys()) server.unref();
  }

  /** The queries and bodies still waiting get their last word now. */
  function answerAllNow() {
    for (const entry of waiting) {
      entry.answered = true;
      const reply = stopAnswer(entry.query);
      entry.respond(
        reply === undefined
          ? unavailable(entry.head)
          : dnsResponse(entry.query, reply, entry.head),
      );
    }
    waiting.clear();
    bodies.cutAll();
  }

  return {
    addr,
    async setCertificate(next) {
      if (plain) {
        throw new TypeError("a plain HTTP DoH listener has no certificate");
      }
      if (stopping) return;
      // Throws for a pair Deno cannot load; the old server goes on.
      const replacement = listen(addr.port, next);
      const old = current;
      current = replacement;
      pair = next;
      watch(replacement);
      if (!await settlesWithin(retire(old), DOH_RETIRE_WAIT_MS)) {
        abandonRetiring("replaced its certificate");
      }
    },
    async stop(answerWithinMs = DOH_STOP_GRACE_MS) {
      if (!stopping) {
        stopping = true;
        if (restartTimer !== undefined) clearTimeout(restartTimer);
        retire(current);
      }
      const deadline = setTimeout(answerAllNow, answerWithinMs);
      try {
        const all = Promise.all(retiring.values());
        if (!await settlesWithin(all, answerWithinMs + DOH_CLOSE_GRACE_MS)) {
          abandonRetiring("stopped");
        }
      } finally {
        clearTimeout(deadline);
        bodies.close();
      }
    },
  };
}

/** True when `promise` settles within `ms`; the timer never outlives the wait. */
async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * 503 for a request a stop cut short before it was a query (its body was
 * still arriving): the client may ask again elsewhere, or here later.
 */
function unavailable(head: boolean): Response {
  return new Response(head ? null : "server shutting down\n", {
    status: 503,
    headers: { "retry-after": "5" },
  });
}
