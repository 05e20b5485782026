/**
 * One HTTP attempt at a block-list URL: a conditional GET (If-None-Match /
 * If-Modified-Since from the copy on disk), bounded by a timeout and a size
 * cap, with the body streamed into a temporary file beside the final one
 * while its sha256 is computed. The caller decides whether the body is a
 * list and renames it into place; nothing here touches the final file.
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { VERSION } from "../version.ts";
import { tempPathFor } from "../blocking/list_files.ts";

export interface DownloadRequest {
  url: string;
  /** Where the body goes once accepted; the temporary file is created beside it. */
  finalPath: string;
  fetch: typeof fetch;
  /** Validators of the copy on disk; omit both for an unconditional GET. */
  etag?: string;
  lastModified?: string;
  maxBytes: number;
  timeoutMs: number;
  /** Aborts the attempt (the fetcher is stopping). */
  signal: AbortSignal;
}

export type DownloadResult =
  | { kind: "notModified" }
  | {
    kind: "body";
    /** The body, complete, in a temporary file the caller renames or removes. */
    tempPath: string;
    size: number;
    /** sha256 hex of the body. */
    digest: string;
    etag?: string;
    lastModified?: string;
  };

/** A failed attempt; `retryable` says whether trying again could help. */
export class DownloadError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
    this.name = "DownloadError";
  }
}

/** "64 MiB", "2 KiB" or "1000 bytes": how limits appear in errors. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function tooLarge(maxBytes: number): DownloadError {
  return new DownloadError(`larger than ${formatBytes(maxBytes)}`, false);
}

/** Retrying a 4xx (other than 408 and 429) only repeats the same answer. */
function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Fetches once; throws DownloadError. */
export async function downloadList(
  req: DownloadRequest,
): Promise<DownloadResult> {
  const abort = new AbortController();
  const onStop = () =>
    abort.abort(
      new DownloadError("stopped before the list was fetched", false),
    );
  if (req.signal.aborted) onStop();
  req.signal.addEventListener("abort", onStop, { once: true });
  // The timeout covers the whole exchange, body included: a server that
  // trickles bytes must not hold a concurrency slot forever.
  const timer = setTimeout(() =>
    abort.abort(
      new DownloadError(
        `timed out after ${formatSeconds(req.timeoutMs)}`,
        true,
      ),
    ), req.timeoutMs);
  try {
    return await exchange(req, abort.signal);
  } catch (err) {
    if (abort.signal.aborted && abort.signal.reason instanceof DownloadError) {
      throw abort.signal.reason;
    }
    if (err instanceof DownloadError) throw err;
    // Connection refused, DNS failure, TLS, reset: the network may recover.
    throw new DownloadError(
      err instanceof Error ? err.message : String(err),
      true,
    );
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onStop);
  }
}

async function exchange(
  req: DownloadRequest,
  signal: AbortSignal,
): Promise<DownloadResult> {
  const headers = new Headers({
    "user-agent": `kudurru/${VERSION}`,
    accept: "text/plain, */*;q=0.5",
  });
  if (req.etag !== undefined) headers.set("if-none-match", req.etag);
  if (req.lastModified !== undefined) {
    headers.set("if-modified-since", req.lastModified);
  }
  signal.throwIfAborted();
  const res = await req.fetch(req.url, { headers, signal });
  if (res.status === 304) {
    await res.body?.cancel();
    if (req.etag === undefined && req.lastModified === undefined) {
      throw new DownloadError(
        "HTTP 304 to a request without validators",
        false,
      );
    }
    return { kind: "notModified" };
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    const text = `HTTP ${res.status} ${res.statusText}`.trim();
    throw new DownloadError(text, retryableStatus(res.status));
  }
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > req.maxBytes) {
    await res.body?.cancel();
    throw tooLarge(req.maxBytes);
  }
  const written = await streamToTemp(res.body, req);
  const etag = res.headers.get("etag");
  const lastModified = res.headers.get("last-modified");
  return {
    kind: "body",
    ...written,
    ...(etag ? { etag } : {}),
    ...(lastModified ? { lastModified } : {}),
  };
}

/** Copies the body into a new temporary file, hashing it; removes the file on any failure. */
async function streamToTemp(
  body: ReadableStream<Uint8Array> | null,
  req: DownloadRequest,
): Promise<{ tempPath: string; size: number; digest: string }> {
  const tempPath = tempPathFor(req.finalPath);
  // Made again if it was removed while running: the lists must come back.
  await Deno.mkdir(dirname(req.finalPath), { recursive: true });
  const file = await Deno.open(tempPath, { write: true, createNew: true });
  const hash = createHash("sha256");
  let size = 0;
  let complete = false;
  const reader = body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > req.maxBytes) throw tooLarge(req.maxBytes);
      hash.update(value);
      for (let at = 0; at < value.byteLength;) {
        at += await file.write(value.subarray(at));
      }
    }
    // The rename that follows must never expose a body that is not on disk.
    await file.syncData();
    complete = true;
  } finally {
    if (!complete) await reader?.cancel().catch(() => {});
    file.close();
    if (!complete) await Deno.remove(tempPath).catch(() => {});
  }
  return { tempPath, size, digest: hash.digest("hex") };
}
