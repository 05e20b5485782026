/**
 * The token bucket that bounds how many QUIC handshakes a DoQ listener
 * starts per second (doq.ts). A handshake is the costliest thing a client
 * can ask of the listener before it is known to be a client at all (key
 * exchange, a signature, per-connection state held until the handshake
 * ends or times out), so a flood of Initial packets must not turn into as
 * many handshakes. The bucket holds one second's worth, so the clients of
 * a restarted server, all reconnecting at once, get in as fast as the rate
 * allows.
 */

export class HandshakeRate {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  /**
   * @param perSecond handshakes started per second, at most
   * @param now milliseconds on any origin; only differences are used. The
   *   default is monotonic, so setting the wall clock neither grants nor
   *   takes tokens.
   */
  constructor(perSecond: number, now: () => number = () => performance.now()) {
    this.#perMs = perSecond / 1000;
    this.#burst = Math.max(1, perSecond);
    this.#now = now;
    this.#tokens = this.#burst;
    this.#at = now();
  }

  /** Takes a token when there is one: true means start the handshake. */
  take(): boolean {
    const now = this.#now();
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + (now - this.#at) * this.#perMs,
    );
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
