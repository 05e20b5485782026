/**
 * The one error the wire parsers throw: the message is malformed. Listeners
 * catch it to answer FORMERR (or drop the packet) and count it.
 */
export class WireFormatError extends Error {
  /** A short reason without context, e.g. `label longer than 63 octets`. */
  readonly reason: string;

  constructor(reason: string, options?: ErrorOptions) {
    super(`Cannot parse DNS message: ${reason}`, options);
    this.name = "WireFormatError";
    this.reason = reason;
  }
}
