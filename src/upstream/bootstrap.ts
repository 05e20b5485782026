/**
 * Resolves the host names of upstream servers ("tls://dns.quad9.net")
 * through the `upstreams.bootstrap` servers: plain UDP A and AAAA queries
 * with the same transport and checks as any upstream query, never the
 * system resolver (which may be kudurru itself). Addresses are cached for
 * their TTL, at least a minute; concurrent lookups of one name share one
 * resolution. Once an address has expired it is still used while a new
 * lookup runs in the background, and for as long as the bootstrap servers
 * cannot be reached (asked again every 30 s): an upstream that is up must
 * not fail because the bootstrap servers are down. A server that answers
 * that the host has no address (NXDOMAIN, no records) ends it; a truncated
 * answer is asked again over TCP. A name with several addresses (IPv4
 * ones, or IPv6 ones when it has no IPv4) is used at its first, and at the
 * next one each time the one in use fails.
 */
import { abortable } from "./abortable.ts";
import { RCODE, TYPE } from "../dns/wire/constants.ts";
import { readAddressRecords } from "./address_records.ts";
import { checkAnswer, expectationOf } from "./answer_check.ts";
import { buildQuery, randomQueryId } from "./build_query.ts";
import {
  parseBootstrapServer,
  type UpstreamServer,
} from "../config/upstream_server.ts";
import { createTcpTransport } from "./tcp.ts";
import type { Transport } from "./types.ts";
import { createUdpTransport } from "./udp.ts";

/** Shortest time a bootstrap answer is kept, whatever its TTL. */
export const BOOTSTRAP_MIN_TTL_MS = 60_000;
/** How long one bootstrap server gets to answer. */
export const BOOTSTRAP_TIMEOUT_MS = 2_000;
/** How soon an expired address is looked up again after a failed lookup. */
export const BOOTSTRAP_RETRY_MS = 30_000;

/**
 * A bootstrap server answered that the host has no address (NXDOMAIN, or
 * neither A nor AAAA): unlike silence, that is news about the host, so an
 * address cached before is dropped rather than kept.
 */
class NoAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoAddressError";
  }
}

/** Resolves upstream host names to an address each, the next on failure. */
export interface Bootstrap {
  /**
   * An address of `host` (IPv4 preferred, IPv6 when there is none): the
   * first the name has, or the next after {@linkcode Bootstrap.failed}.
   *
   * @throws {Error} naming the host when no bootstrap server gives an address
   */
  lookup(host: string, signal: AbortSignal): Promise<string>;
  /**
   * `address` of `host` failed (no connection, no answer): later lookups
   * give the name's next address, if it has another.
   */
  failed(host: string, address: string): void;
}

/** Settings of {@linkcode createBootstrap}. */
export interface BootstrapOptions {
  /** `upstreams.bootstrap`: IP addresses with optional ports, asked in order. */
  servers: readonly string[];
  /** @default 2000 */
  timeoutMs?: number;
  /** The clock for cache expiry (ms). @default Date.now */
  now?: () => number;
}

/** One `upstreams.bootstrap` entry and its UDP transport. */
interface BootstrapServer {
  server: UpstreamServer & { address: string };
  transport: Transport;
}

interface CachedAddresses {
  addresses: string[];
  /** The one lookups give now. */
  index: number;
  expiresAt: number;
}

/**
 * A bootstrap resolver over `servers`.
 *
 * @throws {Error} naming the entry when a server is not a plain IP address
 */
export function createBootstrap(opts: BootstrapOptions): Bootstrap {
  const transports = opts.servers.map((text): BootstrapServer => {
    const server = parseBootstrapServer(text);
    return { server, transport: createUdpTransport(server, server) };
  });
  const timeoutMs = opts.timeoutMs ?? BOOTSTRAP_TIMEOUT_MS;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, CachedAddresses>();
  const inFlight = new Map<string, Promise<string>>();

  async function resolve(host: string): Promise<string> {
    if (transports.length === 0) {
      throw new Error(
        `Cannot resolve upstream host "${host}": upstreams.bootstrap is empty`,
      );
    }
    const failures: string[] = [];
    let denied = false;
    for (const { server, transport } of transports) {
      try {
        const found = await askOne({ server, transport }, host, timeoutMs);
        cache.set(host, {
          addresses: found.addresses,
          index: 0,
          expiresAt: now() + Math.max(found.ttl * 1000, BOOTSTRAP_MIN_TTL_MS),
        });
        return found.addresses[0]!;
      } catch (error) {
        if (error instanceof NoAddressError) denied = true;
        failures.push(`${server.raw}: ${messageOf(error)}`);
      }
    }
    const message =
      `Cannot resolve upstream host "${host}" through the bootstrap servers: ${
        failures.join("; ")
      }`;
    throw denied ? new NoAddressError(message) : new Error(message);
  }

  /** One resolution of `host` at a time, shared by every caller. */
  function refresh(host: string): Promise<string> {
    let pending = inFlight.get(host);
    if (pending === undefined) {
      pending = resolve(host).finally(() => inFlight.delete(host));
      inFlight.set(host, pending);
    }
    return pending;
  }

  return {
    lookup(host, signal) {
      const cached = cache.get(host);
      if (cached === undefined) return abortable(refresh(host), signal);
      if (cached.expiresAt <= now()) {
        // Expired: serve it while a lookup runs. Servers that cannot be
        // reached keep it; one that says the host has no address ends it.
        refresh(host).catch((error) => {
          if (error instanceof NoAddressError) cache.delete(host);
          else cached.expiresAt = now() + BOOTSTRAP_RETRY_MS;
        });
      }
      return Promise.resolve(cached.addresses[cached.index]!);
    },
    failed(host, address) {
      const cached = cache.get(host);
      if (cached === undefined || cached.addresses.length < 2) return;
      // Only the address in use moves on: a late failure of one already
      // left behind must not skip the one now tried.
      if (cached.addresses[cached.index] !== address) return;
      cached.index = (cached.index + 1) % cached.addresses.length;
    },
  };
}

/**
 * A and AAAA from one server at once. An A answer with addresses wins at
 * once (a server that never answers AAAA must not cost the timeout); the
 * AAAA answer is waited for only when there is none.
 */
async function askOne(
  bootstrapServer: BootstrapServer,
  host: string,
  timeoutMs: number,
): Promise<{ addresses: string[]; ttl: number }> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error(`no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const a = askType(bootstrapServer, host, TYPE.A, timeout.signal);
  const aaaa = askType(bootstrapServer, host, TYPE.AAAA, timeout.signal);
  aaaa.catch(() => {}); // read below, or given up when A answers
  try {
    let aError: unknown;
    try {
      const found = await a;
      if (found.addresses.length > 0) {
        return { addresses: found.addresses, ttl: found.ttl };
      }
    } catch (error) {
      aError = error;
    }
    const found = await aaaa.catch((error) => {
      throw aError ?? error;
    });
    if (found.addresses.length > 0) {
      return { addresses: found.addresses, ttl: found.ttl };
    }
    if (aError !== undefined) throw aError;
    throw new NoAddressError("no A or AAAA records");
  } finally {
    clearTimeout(timer);
    timeout.abort(new Error("answered")); // ends the query still waiting
  }
}

/**
 * One question to one server; a truncated (TC=1) answer is asked again
 * over TCP: cut short, it may lack the addresses, and taken as "none" it
 * would drop an address cached before.
 */
async function askType(
  { server, transport }: BootstrapServer,
  host: string,
  type: typeof TYPE.A | typeof TYPE.AAAA,
  signal: AbortSignal,
) {
  let found = await exchangeChecked(transport, host, type, signal);
  if (found.check.truncated) {
    const tcp = createTcpTransport({ ...server, scheme: "tcp" }, server);
    try {
      found = await exchangeChecked(tcp, host, type, signal);
    } finally {
      await tcp.closeAndWait();
    }
    if (found.check.truncated) throw new Error("truncated over TCP");
  }
  const { answer, check } = found;
  if (check.rcode === RCODE.NXDOMAIN) throw new NoAddressError("NXDOMAIN");
  if (check.rcode !== RCODE.NOERROR) throw new Error(`RCODE ${check.rcode}`);
  return readAddressRecords(answer, type);
}

/** A fresh query for `host` over `transport`, and its answer checked. */
async function exchangeChecked(
  transport: Transport,
  host: string,
  type: typeof TYPE.A | typeof TYPE.AAAA,
  signal: AbortSignal,
) {
  const query = buildQuery({
    name: `${host}.`,
    type,
    class: 1,
    dnssecOk: false,
    checkingDisabled: false,
  }, randomQueryId());
  const answer = await transport.exchange(query, signal);
  const check = checkAnswer(expectationOf(query), answer);
  if (!check.ok) throw new Error(`answer dropped: ${check.why}`);
  return { answer, check };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
