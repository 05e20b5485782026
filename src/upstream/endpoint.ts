/**
 * One configured upstream server with what the groups need to ask it: its
 * score, its transport (made when first needed, remade when bootstrap
 * resolves its name to a new address) and, for UDP servers, the TCP
 * transport that truncated answers are retried over.
 */
import type { Bootstrap } from "./bootstrap.ts";
import { isIpAddress, type UpstreamServer } from "./server_address.ts";
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
}

/** A server, its score and its transports. */
export class UpstreamEndpoint {
  readonly server: UpstreamServer;
  readonly score: ServerScore;
  readonly #deps: EndpointDeps;
  #main: Bound | undefined;
  #tcp: Bound | undefined;
  /** Transports replaced after an address change, still closing. */
  readonly #retired = new Set<Promise<void>>();

  constructor(server: UpstreamServer, deps: EndpointDeps) {
    this.server = server;
    this.#deps = deps;
    this.score = new ServerScore(deps.now);
  }

  /** The transport of the server's own scheme. */
  async transport(signal: AbortSignal): Promise<Transport> {
    const address = await this.#address(signal);
    if (this.#main?.address !== address) {
      this.#retire(this.#main);
      this.#main = {
        address,
        transport: this.#deps.createTransport(
          this.server,
          this.#depsFor(address),
        ),
      };
    }
    return this.#main.transport;
  }

  /** A TCP transport to the same address and port, for TC=1 answers over UDP. */
  async tcpFallback(signal: AbortSignal): Promise<Transport> {
    const address = await this.#address(signal);
    if (this.#tcp?.address !== address) {
      this.#retire(this.#tcp);
      this.#tcp = {
        address,
        transport: createTcpTransport({ ...this.server, scheme: "tcp" }, {
          address,
        }),
      };
    }
    return this.#tcp.transport;
  }

  /**
   * An attempt failed (an error or silence): a server known by a name
   * moves to the name's next address for later queries (bootstrap.ts).
   */
  failed(): void {
    const { host } = this.server;
    const address = this.#main?.address;
    if (address === undefined || isIpAddress(host)) return;
    this.#deps.bootstrap?.failed(host, address);
  }

  /** Closes every transport and waits for their connections to end. */
  async close(): Promise<void> {
    this.#retire(this.#main);
    this.#retire(this.#tcp);
    this.#main = this.#tcp = undefined;
    await Promise.all([...this.#retired]);
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

  #retire(bound: Bound | undefined): void {
    if (bound === undefined) return;
    const closing = closeTransport(bound.transport).catch(() => undefined)
      .then(() => {
        this.#retired.delete(closing);
      });
    this.#retired.add(closing);
  }
}
