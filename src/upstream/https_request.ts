/**
 * One RFC 8484 exchange on an HTTP/2 session: POST the query as
 * application/dns-message, accept only a 200 with that content type and a
 * body a DNS message can be (at most 65,535 bytes).
 */

import http2 from "node:http2";

/** The DoH media type (RFC 8484 §6). */
export const DNS_MESSAGE_TYPE = "application/dns-message";
/** The largest DNS message (RFC 8484 §6: same bound as over TCP). */
export const MAX_DOH_ANSWER = 65535;

/** What a request needs to know about its server. */
export interface DohRequestContext {
  /** The server as configured, for error messages. */
  label: string;
  /** The request path, with its leading slash ("/dns-query"). */
  path: string;
  /** The connect failure behind a stream error, or null once connected. */
  connectError: (streamError?: unknown) => Error | null;
  /** The server sent the response headers: the session is alive. */
  onResponse?: () => void;
}

/**
 * The server refused the stream (RST_STREAM or GOAWAY with REFUSED_STREAM):
 * it did not process the query (RFC 9113 §8.7), so asking again on another
 * connection is safe.
 */
export class StreamRefusedError extends Error {}

/**
 * POSTs `query` on `session` and resolves with the answer body.
 *
 * @throws {StreamRefusedError} when the server refused the stream
 * @throws {Error} naming the server on a connect failure, a non-200 status,
 *   a wrong content type, an oversized or empty body, or a reset stream
 * @throws the signal's reason when it aborts first
 */
export function postDnsMessage(
  session: http2.ClientHttp2Session,
  query: Uint8Array,
  signal: AbortSignal,
  ctx: DohRequestContext,
): Promise<Uint8Array> {
  const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
  const fail = (why: string, cause?: unknown) => {
    const refused = stream?.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM;
    return new (refused ? StreamRefusedError : Error)(
      `DoH server "${ctx.label}" gave no answer: ${why}`,
      cause === undefined ? undefined : { cause },
    );
  };
  let stream: http2.ClientHttp2Stream | undefined;
  try {
    stream = session.request({
      ":method": "POST",
      ":path": ctx.path,
      "content-type": DNS_MESSAGE_TYPE,
      "accept": DNS_MESSAGE_TYPE,
      "content-length": String(query.length),
    });
  } catch (err) {
    return Promise.reject(ctx.connectError(err) ?? fail(messageOf(err), err));
  }

  let settled = false;
  const settle = (error: unknown, answer?: Uint8Array) => {
    if (settled) return;
    settled = true;
    signal.removeEventListener("abort", onAbort);
    if (answer === undefined) {
      // Stop the server's work on a stream we no longer want.
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(error);
    } else {
      resolve(answer);
    }
  };
  const onAbort = () => settle(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });

  const chunks: Uint8Array[] = [];
  let size = 0;
  stream.on("response", (headers) => {
    ctx.onResponse?.();
    const status = headers[":status"];
    const type = String(headers["content-type"] ?? "");
    if (status !== 200) {
      settle(fail(`HTTP status ${status}`));
    } else if (!isDnsMessageType(type)) {
      settle(fail(`content type "${type}" is not ${DNS_MESSAGE_TYPE}`));
    }
  });
  stream.on("data", (chunk: Uint8Array) => {
    size += chunk.length;
    if (size > MAX_DOH_ANSWER) {
      settle(fail(`the body is over ${MAX_DOH_ANSWER} bytes`));
    } else {
      chunks.push(chunk);
    }
  });
  stream.on("end", () => {
    if (size === 0) settle(fail("the body is empty"));
    else settle(null, concat(chunks, size));
  });
  stream.on("error", (err: Error) => {
    settle(ctx.connectError(err) ?? fail(messageOf(err), err));
  });
  stream.on("close", () => {
    settle(ctx.connectError() ?? fail("the stream closed before the answer"));
  });
  stream.end(query);
  return promise;
}

/** "application/dns-message", any case, parameters allowed. */
function isDnsMessageType(contentType: string): boolean {
  return contentType.split(";")[0]!.trim().toLowerCase() === DNS_MESSAGE_TYPE;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
