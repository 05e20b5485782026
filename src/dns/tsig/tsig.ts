/**
 * TSIG (RFC 8945): signing a message and checking a signed one with a
 * shared key, HMAC-SHA-256 by default (SHA-384, SHA-512, and SHA-1 for old
 * peers): one message (a request, or a response to a request whose MAC
 * the response covers, §4.3.1), or the messages of a transfer, each
 * covering the MAC before it (§5.3.1; signStream, TsigStreamCheck). MACs
 * are computed by WebCrypto and compared in constant time.
 *
 * What is signed (§4.3.3): the request's MAC (for a response), the message
 * as it was before its TSIG record was added (its original ID, ARCOUNT
 * without the TSIG), then the TSIG variables: the key name and algorithm
 * name in canonical form (lowercase, uncompressed), class ANY, TTL 0, Time
 * Signed, Fudge, Error and Other Data.
 */
import { CLASS, TYPE } from "../wire/constants.ts";
import { HEADER_OCTETS } from "../wire/query.ts";
import { TSIG_ERROR } from "../wire/tsig_error.ts";
import { WireFormatError } from "../wire/wire_format_error.ts";
import {
  arcount,
  canonicalWire,
  concat,
  digestInput,
  hmac,
  hmacKey,
  lower,
  nameText,
  readTsig,
  sameOctets,
  timersOf,
  u16,
} from "./tsig_wire.ts";

/** TSIG errors (RFC 8945 §4.3, in the record's Error field). */
export { TSIG_ERROR } from "../wire/tsig_error.ts";

/** The algorithms, by their name in TSIG (RFC 8945 §6), with their hash. */
export const TSIG_ALGORITHMS = {
  "hmac-sha256": { hash: "SHA-256", octets: 32 },
  "hmac-sha384": { hash: "SHA-384", octets: 48 },
  "hmac-sha512": { hash: "SHA-512", octets: 64 },
  "hmac-sha1": { hash: "SHA-1", octets: 20 },
} as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;

/** A shared key: its name (as peers configure it), algorithm and secret. */
export interface TsigKey {
  /** A domain name, such as "transfer.example." (compared case-insensitively). */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Uint8Array;
}

/** How far Time Signed may be from now, in seconds, by default (§10). */
export const DEFAULT_FUDGE = 300;

/** The message signed: the TSIG record appended, ARCOUNT one more. */
export async function signMessage(
  message: Uint8Array,
  key: TsigKey,
  opts: {
    /** Seconds since the epoch. */
    now: number;
    fudge?: number;
    /** The request's MAC, when `message` answers a signed request. */
    requestMac?: Uint8Array;
    error?: number;
    otherData?: Uint8Array;
  },
): Promise<{ message: Uint8Array; mac: Uint8Array }> {
  if (message.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than its header");
  }
  const keyName = canonicalWire(key.name);
  const algorithm = canonicalWire(key.algorithm);
  const timers = timersOf(opts.now, opts.fudge ?? DEFAULT_FUDGE);
  const error = opts.error ?? 0;
  const other = opts.otherData ?? new Uint8Array();
  const mac = await hmac(
    key,
    digestInput(
      opts.requestMac,
      message,
      keyName,
      algorithm,
      timers,
      error,
      other,
    ),
  );
  const signed = appendTsig(message, key, timers, mac, error, other);
  return { message: signed, mac };
}

/** `message` with a TSIG record of `mac` appended, ARCOUNT one more. */
function appendTsig(
  message: Uint8Array,
  key: TsigKey,
  timers: Uint8Array,
  mac: Uint8Array,
  error: number,
  other: Uint8Array,
): Uint8Array {
  const rdata = concat(
    canonicalWire(key.algorithm),
    timers,
    u16(mac.length),
    mac,
    message.subarray(0, 2), // Original ID
    u16(error),
    u16(other.length),
    other,
  );
  const record = concat(
    canonicalWire(key.name),
    u16(TYPE.TSIG),
    u16(CLASS.ANY),
    new Uint8Array(4), // TTL 0
    u16(rdata.length),
    rdata,
  );
  const signed = concat(message, record);
  new DataView(signed.buffer).setUint16(10, arcount(message) + 1);
  return signed;
}

/** What checking a message's TSIG found. */
export type TsigCheck =
  /** The message has no TSIG record. */
  | { status: "unsigned" }
  /** Signed with `key`, the MAC and the time right. */
  | { status: "ok"; key: TsigKey; mac: Uint8Array; timeSigned: number }
  /**
   * Signed but refused: BADKEY (no such key, or not with that algorithm),
   * BADSIG (the MAC does not match), BADTIME (outside the fudge). `mac` is
   * the one sent (for the answer's TSIG, §5.3.2), `key` when it was known.
   */
  | {
    status: "error";
    error: number;
    keyName: string;
    mac: Uint8Array;
    key?: TsigKey;
    timeSigned: number;
  };

/**
 * Checks the TSIG of `message`: the last record of the additional section
 * (§5.1; a TSIG anywhere else is a format error).
 *
 * @throws {WireFormatError} on a malformed message or TSIG record
 */
export async function checkMessage(
  message: Uint8Array,
  keys: (name: string) => TsigKey | undefined,
  opts: { now: number; requestMac?: Uint8Array },
): Promise<TsigCheck> {
  const tsig = readTsig(message);
  if (tsig === undefined) return { status: "unsigned" };
  const { keyName, algorithm, timers, timeSigned, fudge, mac, error, other } =
    tsig;
  const macSize = mac.length;
  const name = nameText(keyName);
  const key = keys(name);
  const refused = (code: number, known?: TsigKey): TsigCheck => ({
    status: "error",
    error: code,
    keyName: name,
    mac,
    ...(known && { key: known }),
    timeSigned,
  });
  if (
    key === undefined ||
    !sameOctets(lower(algorithm), canonicalWire(key.algorithm))
  ) {
    return refused(TSIG_ERROR.BADKEY);
  }
  // §5.2.2.1: a MAC may be cut short, down to half its length and 10 octets.
  const full = TSIG_ALGORITHMS[key.algorithm].octets;
  if (macSize > full || macSize < Math.max(10, Math.ceil(full / 2))) {
    return refused(TSIG_ERROR.BADSIG, key);
  }
  // The message as it was signed: without its TSIG, with its original ID.
  const input = digestInput(
    opts.requestMac,
    tsig.unsigned,
    lower(keyName),
    lower(algorithm),
    timers,
    error,
    other,
  );
  const verified = macSize === full
    ? await crypto.subtle.verify(
      "HMAC",
      await hmacKey(key),
      mac,
      input as Uint8Array<ArrayBuffer>,
    )
    : sameOctets((await hmac(key, input)).subarray(0, macSize), mac);
  if (!verified) return refused(TSIG_ERROR.BADSIG, key);
  if (Math.abs(opts.now - timeSigned) > fudge) {
    return refused(TSIG_ERROR.BADTIME, key);
  }
  return { status: "ok", key, mac, timeSigned };
}

/** How the messages of one answer are signed. */
export interface StreamSigning {
  /** Seconds since the epoch. */
  now: number;
  fudge?: number;
  /** The request's MAC, which the first message covers. */
  requestMac: Uint8Array;
  /** Sign every n-th message (and the first and last); at most 100. @default 1 */
  every?: number;
}

/**
 * Signs the messages of a multi-message answer (AXFR, IXFR over TCP),
 * every one of them (RFC 8945 §5.3.1): the first covers the request's MAC
 * as any response does; each later one covers the MAC before it, its own
 * bytes and only Time Signed and Fudge.
 */
export async function signStream(
  messages: readonly Uint8Array[],
  key: TsigKey,
  opts: StreamSigning,
): Promise<Uint8Array[]> {
  const signer = new TsigStreamSigner(key, opts);
  const out: Uint8Array[] = [];
  for (const [i, message] of messages.entries()) {
    out.push(await signer.sign(message, i === messages.length - 1));
  }
  return out;
}

/**
 * signStream one message at a time, for an answer made as it is sent: the
 * first message, every n-th and the last are signed, the others pass
 * unsigned and are covered by the next signed one.
 */
export class TsigStreamSigner {
  readonly #key: TsigKey;
  readonly #opts: { now: number; fudge?: number };
  readonly #every: number;
  readonly #timers: Uint8Array;
  #prior: Uint8Array;
  #between: Uint8Array[] = [];
  #index = 0;

  constructor(key: TsigKey, opts: StreamSigning) {
    this.#key = key;
    this.#opts = {
      now: opts.now,
      ...(opts.fudge !== undefined && { fudge: opts.fudge }),
    };
    this.#every = Math.min(100, Math.max(1, opts.every ?? 1));
    this.#timers = timersOf(opts.now, opts.fudge ?? DEFAULT_FUDGE);
    this.#prior = opts.requestMac;
  }

  /** `message`, signed if its turn (or `last`) has come. */
  async sign(message: Uint8Array, last: boolean): Promise<Uint8Array> {
    const i = this.#index++;
    if (i === 0) {
      const first = await signMessage(message, this.#key, {
        ...this.#opts,
        requestMac: this.#prior,
      });
      this.#prior = first.mac;
      return first.message;
    }
    if (i % this.#every !== 0 && !last) {
      this.#between.push(message);
      return message;
    }
    const mac = await hmac(
      this.#key,
      concat(
        u16(this.#prior.length),
        this.#prior,
        ...this.#between,
        message,
        this.#timers,
      ),
    );
    this.#prior = mac;
    this.#between = [];
    return appendTsig(
      message,
      this.#key,
      this.#timers,
      mac,
      0,
      new Uint8Array(),
    );
  }
}

/**
 * Checks the messages of a multi-message answer one by one as they come
 * (RFC 8945 §5.3.1): the first must be signed, covering the request's MAC;
 * later ones may go unsigned, up to 99 in a row, and the next signed one
 * covers them too. `end()` says whether the last message was signed, as
 * the answer's last must be.
 */
export class TsigStreamCheck {
  readonly #key: TsigKey;
  readonly #now: () => number;
  #prior: Uint8Array;
  #first = true;
  #unsigned: Uint8Array[] = [];

  constructor(key: TsigKey, requestMac: Uint8Array, now: () => number) {
    this.#key = key;
    this.#prior = requestMac;
    this.#now = now;
  }

  /**
   * The check of the next message: "ok" (signed and right), "unsigned"
   * (allowed between signed ones), or "error" with the TSIG error.
   * @throws {WireFormatError} on a malformed message or TSIG record
   */
  async next(message: Uint8Array): Promise<TsigCheck> {
    if (this.#first) {
      this.#first = false;
      const check = await checkMessage(
        message,
        (name) =>
          name === nameText(canonicalWire(this.#key.name))
            ? this.#key
            : undefined,
        { now: this.#now(), requestMac: this.#prior },
      );
      if (check.status === "ok") this.#prior = check.mac;
      return check.status === "unsigned"
        ? {
          status: "error",
          error: TSIG_ERROR.BADSIG,
          keyName: this.#key.name,
          mac: new Uint8Array(),
          timeSigned: 0,
        }
        : check;
    }
    const tsig = readTsig(message);
    if (tsig === undefined) {
      if (this.#unsigned.length >= 99) return this.#refused(TSIG_ERROR.BADSIG);
      this.#unsigned.push(message);
      return { status: "unsigned" };
    }
    const { timers, timeSigned, fudge, mac, unsigned } = tsig;
    const macSize = mac.length;
    const expected = await hmac(
      this.#key,
      concat(
        u16(this.#prior.length),
        this.#prior,
        ...this.#unsigned,
        unsigned,
        timers,
      ),
    );
    this.#unsigned = [];
    if (macSize !== expected.length || !sameOctets(expected, mac)) {
      return this.#refused(TSIG_ERROR.BADSIG, mac, timeSigned);
    }
    if (Math.abs(this.#now() - timeSigned) > fudge) {
      return this.#refused(TSIG_ERROR.BADTIME, mac, timeSigned);
    }
    this.#prior = mac;
    return { status: "ok", key: this.#key, mac, timeSigned };
  }

  #refused(error: number, mac = new Uint8Array(), timeSigned = 0): TsigCheck {
    return {
      status: "error",
      error,
      keyName: this.#key.name,
      mac,
      key: this.#key,
      timeSigned,
    };
  }

  /** Whether the stream may end here: its last message was signed. */
  end(): boolean {
    return !this.#first && this.#unsigned.length === 0;
  }
}
