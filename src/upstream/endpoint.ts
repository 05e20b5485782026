/**
 * One configured upstream server with what the groups need to ask it: its
 * score, its transport (made when first needed, remade when bootstrap
 * resolves its name to a new address, the old one closed once its queries
 * in flight have ended), whether it takes EDNS and, for UDP servers, the
 * TCP transport that truncated answers are retried over.
 */
import type { Bootstrap } from "./bootstrap.ts";
import { EdnsSupport } from "./edns_support.ts";
import { isIpAddress, type UpstreamServer } from "../config/upstream_server.ts";
import { ServerScore } from "./server_score.ts";
import { createTcpTransport } from "./tcp.ts";
import {
  closeTransport,
  type TransportDeps,
  type TransportFactory,
} from "./transport_factory.ts";
import type { Transport } from "./types.ts";

/** What endpoints share. */
export interface EndpointDeps {
  createTransport: TransportFactory;
  /** Resolves host names; undefined makes a host name an error at query time. */
  bootstrap: Bootstrap | undefined;
  caCerts?: string[];
  /** Clock for the score's penalty decay (ms). */
  now: () => number;
}

interface Bound {
  address: string;
  transport: Transport;
  /** Exchanges started on it and not yet ended. */
  inFlight: number;
  /** Replaced after an address change: closed once its exchanges end. */
  retired: boolean;
  closed: boolean;
}

/** Where one attempt's query went: the address, once known. */
export interface AttemptTarget {
  address?: string;
}

/** A server, its score and its transports. */
export class UpstreamEndpoint {
  readonly server: UpstreamServer;
  readonly score: ServerScore;
  /** Whether the server takes EDNS, as far as seen lately. */
  readonly edns: EdnsSupport;
  readonly #deps: EndpointDeps;
  #main: Bound | undefined;
  #tcp: Bound | undefined;
  /** Transports replaced after an address change, still answering. */
  readonly #draining = new Set<Bound>();
  /** Transports replaced after an address change, closing. */
  readonly #closing = new Set<Promise<void>>();

  constructor(server: UpstreamServer, deps: EndpointDeps) {
    this.server = server;
    this.#deps = deps;
    this.score = new ServerScore(deps.now);
    this.edns = new EdnsSupport(deps.now);
  }

  /**
   * Sends `query` over the transport of the server's scheme and returns
   * the raw answer; `target` learns the address it went to.
   */
  async exchange(
    query: Uint8Array,
    signal: AbortSignal,
    target: AttemptTarget = {},
  ): Promise<Uint8Array> {
    const address = await this.#address(signal);
    target.address = address;
    let bound = this.#main;
    if (bound?.address !== address) {
      this.#retire(bound);
      bound = this.#main = this.#bind(
        address,
        this.#deps.createTransport(this.server, this.#depsFor(address)),
      );
    }
    return await this.#exchangeOn(bound, query, signal);
  }

  /** Sends `query` over TCP to the same address and port, for TC=1 answers over UDP. */
  async exchangeOverTcp(
    query: Uint8Array,
    signal: AbortSignal,
    target: AttemptTarget = {},
  ): Promise<Uint8Array> {
    const address = await this.#address(signal);
    target.address = address;
    let bound = this.#tcp;
    if (bound?.address !== address) {
      this.#retire(bound);
      bound = this.#tcp = this.#bind(
        address,
        createTcpTransport({ ...this.server, scheme: "tcp" }, { address }),
      );
    }
    return await this.#exchangeOn(bound, query, signal);
  }

  /**
   * An attempt at `address` got no answer (an error or silence): a server
   * known by a name moves to the name's next address for later queries
   * (bootstrap.ts). Only the address that failed moves on: a late failure
   * at one already left behind must not skip the one now in use. A failure
   * answer (SERVFAIL, …) is no reason: that address answers.
   */
  failed(address: string | undefined): void {
    if (address === undefined || isIpAddress(this.server.host)) return;
    this.#deps.bootstrap?.failed(this.server.host, address);
  }

  /** Closes every transport and waits for their connections to end. */
  async close(): Promise<void> {
    this.#retire(this.#main);
    this.#retire(this.#tcp);
    this.#main = this.#tcp = undefined;
    for (const bound of this.#draining) this.#closeNow(bound);
    await Promise.all([...this.#closing]);
  }

  #address(signal: AbortSignal): Promise<string> {
    const { host } = this.server;
    if (isIpAddress(host)) return Promise.resolve(host);
    const { bootstrap } = this.#deps;
    if (bootstrap === undefined) {
      return Promise.reject(
        new Error(`Cannot resolve upstream host "${host}": no bootstrap`),
      );
    }
    return bootstrap.lookup(host, signal);
  }

  #depsFor(address: string): TransportDeps {
    const { caCerts } = this.#deps;
    return caCerts === undefined ? { address } : { address, caCerts };
  }

  #bind(address: string, transport: Transport): Bound {
    return { address, transport, inFlight: 0, retired: false, closed: false };
  }

  async #exchangeOn(
    bound: Bound,
    query: Uint8Array,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    bound.inFlight++;
    try {
      return await bound.transport.exchange(query, signal);
    } finally {
      bound.inFlight--;
      if (bound.retired && bound.inFlight === 0) this.#closeNow(bound);
    }
  }

  /**
   * Sends no more queries to `bound`, and closes it once the ones in flight
   * have ended: the old address still answers them (the new one was chosen
   * for another query's failure, or a new bootstrap answer), and closing at
   * once would fail them all.
   */
  #retire(bound: Bound | undefined): void {
    if (bound === undefined || bound.retired) return;
    bound.retired = true;
    if (bound.inFlight === 0) this.#closeNow(bound);
    else this.#draining.add(bound);
  }

  #closeNow(bound: Bound): void {
    if (bound.closed) return;
    bound.closed = true;
    this.#draining.delete(bound);
    const closing = closeTransport(bound.transport).catch(() => undefined)
      .then(() => {
        this.#closing.delete(closing);
      });
    this.#closing.add(closing);
  }
}
