/**
 * The bodies of DoH requests as they arrive: a POST's query read up to
 * 65,535 octets and no further, the rest of a refused request's body read
 * and dropped, and both cut short when they take too long or the listener
 * stops. Deno.serve bounds how long HTTP/1.1 headers take, not the body,
 * and a body that never ends would otherwise hold its request, and a stop
 * that waits for it, forever.
 *
 * With a Content-Length (the header was checked before, postLength) the
 * body is taken whole with `request.bytes()`, Deno's one-op read: hyper
 * holds HTTP/1.1 and HTTP/2 bodies to their Content-Length, so it is never
 * longer. Measured on loopback with h2load (one 29-octet query per POST),
 * a stream reader cost 3 to 10 µs of CPU more per request. Without one (a
 * chunked HTTP/1.1 body, HTTP/2 without the header) the stream is read
 * chunk by chunk; a chunk may be larger than the cap (hyper hands over what
 * it read at once), and that one chunk is the most ever held.
 *
 * Why a refused body is read at all: a response sent while the request's
 * body is still arriving makes Deno reset the HTTP/2 stream once the
 * response is out, and curl 7.88 then drops the response it had (exit 92)
 * about half the time; the client never learns why. Read to its end (and
 * dropped: nothing is kept), the request closes cleanly and the 4xx
 * arrives. Past DOH_DRAIN_OCTETS the body is no mistake worth explaining:
 * the stream is cancelled and the client may see the reset instead.
 */
import {
  DNS_HEADER_OCTETS,
  MAX_DNS_MESSAGE,
  type Refusal,
  tooLarge,
  tooShort,
} from "./doh_request.ts";

/** Most octets of a refused body read (and dropped) before it is cancelled. */
export const DOH_DRAIN_OCTETS = 1024 * 1024;

/** A body, why there is none, or "stopping": the listener cut it short. */
export type BodyResult = Uint8Array | Refusal | "stopping";

interface BodyRead {
  since: number;
  /** Settles the read; the first call counts. */
  finish: (result: BodyResult) => void;
  /** The stream's reader, when the body is read chunk by chunk. */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
}

export class DohBodies {
  readonly #timeoutMs: number;
  readonly #reading = new Set<BodyRead>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Bodies not complete after `timeoutMs` get 408 (RFC 9110 §15.5.9). */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Bodies being read now. */
  get size(): number {
    return this.#reading.size;
  }

  /**
   * The query in the body of `request`, `length` octets long when its
   * Content-Length said so (undefined: up to the cap, 413 past it).
   */
  read(request: Request, length: number | undefined): Promise<BodyResult> {
    const stream = request.body;
    if (stream === null) return Promise.resolve(tooShort());
    return this.#track((read) => {
      if (length !== undefined) {
        request.bytes().then(
          (body) =>
            read.finish(body.length < DNS_HEADER_OCTETS ? tooShort() : body),
          () => read.finish(unreadable()),
        );
      } else {
        read.reader = stream.getReader();
        readChunks(read.reader).then(
          read.finish,
          () => read.finish(unreadable()),
        );
      }
    });
  }

  /**
   * Reads the rest of a refused request's body and drops it (at most
   * DOH_DRAIN_OCTETS, within the body timeout); resolves when it ended, was
   * cut, or failed.
   */
  async drain(request: Request): Promise<void> {
    const stream = request.body;
    if (stream === null || stream.locked) return;
    await this.#track((read) => {
      read.reader = stream.getReader();
      dropChunks(read.reader, 0).then(
        read.finish,
        () => read.finish(unreadable()),
      );
    });
  }

  /** Every body still arriving ends now with "stopping". */
  cutAll(): void {
    for (const read of [...this.#reading]) cut(read, "stopping");
  }

  /** Cuts what is left (as cutAll) and drops the timer. */
  close(): void {
    this.cutAll();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A read started by `start`, under the timeout and cutAll. */
  #track(start: (read: BodyRead) => void): Promise<BodyResult> {
    return new Promise<BodyResult>((resolve) => {
      const read: BodyRead = {
        since: Date.now(),
        finish: (result) => {
          if (this.#reading.delete(read)) resolve(result);
        },
      };
      this.#reading.add(read);
      this.#sweepLater();
      start(read);
    });
  }

  /** One timer while bodies are being read, none otherwise. */
  #sweepLater(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const now = Date.now();
      for (const read of [...this.#reading]) {
        if (now - read.since >= this.#timeoutMs) {
          cut(read, { status: 408, reason: "the body took too long" });
        }
      }
      if (this.#reading.size > 0) this.#sweepLater();
    }, Math.min(1000, this.#timeoutMs));
  }
}

/**
 * Ends `read` with `why`. A chunked read's stream is cancelled; a whole
 * read (`bytes()`) cannot be, and ends when its request does: the answer
 * sent for it closes an HTTP/1.1 connection whose body was not read, and
 * resets an HTTP/2 stream.
 */
function cut(read: BodyRead, why: Refusal | "stopping"): void {
  read.finish(why);
  read.reader?.cancel().catch(() => {});
}

/** Chunks up to the cap; past it the rest is dropped (413). */
async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<BodyResult> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_DNS_MESSAGE) return await dropChunks(reader, total);
    chunks.push(value);
  }
  if (total < DNS_HEADER_OCTETS) return tooShort();
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}

/**
 * Reads to the end and keeps nothing, `seen` octets read already;
 * cancels the stream past DOH_DRAIN_OCTETS. Always a 413: what is
 * dropped past the cap is never a query (for a drain the caller has its
 * own refusal and ignores this one).
 */
async function dropChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  seen: number,
): Promise<Refusal> {
  let total = seen;
  while (total <= DOH_DRAIN_OCTETS) {
    const { done, value } = await reader.read();
    if (done) return tooLarge();
    total += value.length;
  }
  reader.cancel().catch(() => {});
  return tooLarge();
}

function unreadable(): Refusal {
  return { status: 400, reason: "the body could not be read" };
}
