/**
 * Fetching one list URL end to end: conditional GET with retries and
 * exponential backoff, the "is this a list" check, counting, the atomic
 * rename into `<listsDir>/<sha256(url)>` and the sidecar. On any failure the
 * previous body stays where it is (stale-on-unreachable) and the outcome
 * carries the error for the source's status. Large bodies are decoded and
 * counted in a compile worker, not on the main thread (64 MiB: a second).
 */
import type { ListFormat } from "../blocking/types.ts";
import type { Logger } from "../log/logger.ts";
import { runInWorker } from "../snapshot/compile_workers.ts";
import {
  type CountJob,
  type CountResult,
  runCountJob,
} from "../snapshot/list_compile_job.ts";
import {
  DownloadError,
  downloadList,
  type DownloadResult,
} from "./list_fetch_download.ts";
import type { Limiter } from "./list_fetch_limit.ts";
import { pause } from "../async/pause.ts";
import {
  type ListFileMeta,
  readListMeta,
  writeListMeta,
} from "../blocking/list_meta.ts";
import { listFilePath, listMetaPath } from "../blocking/list_files.ts";

export interface ListFetchJob {
  url: string;
  /** Declared formats of the sources reading this URL; each gets counts. */
  formats: readonly ListFormat[];
  /**
   * false: no request, only count the formats the copy on disk lacks (a
   * source's format changed); with no copy on disk it fetches anyway.
   */
  network: boolean;
  listsDir: string;
  fetch: typeof fetch;
  maxBytes: number;
  timeoutMs: number;
  /** Waits between attempts; its length + 1 is the number of attempts. */
  retryDelaysMs: readonly number[];
  limiter: Limiter;
  signal: AbortSignal;
  now: () => Date;
  logger: Logger;
}

export type ListFetchOutcome =
  | { ok: true; meta: ListFileMeta; attempts: number; notModified: boolean }
  | {
    ok: false;
    error: string;
    attempts: number;
    /** The copy still on disk and still served, if any. */
    meta?: ListFileMeta;
  };

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs one job; never throws (a stop shows as a failed outcome). */
export async function runListFetch(
  job: ListFetchJob,
): Promise<ListFetchOutcome> {
  let previous: ListFileMeta | undefined;
  try {
    previous = await readListMeta(job.listsDir, job.url);
  } catch (err) {
    job.logger.warn("Cannot read the cached list; downloading it again", {
      url: job.url,
      error: err,
    });
  }
  const stale = previous ? { meta: previous } : {};
  if (!job.network && previous) {
    try {
      return {
        ok: true,
        meta: await recount(job, previous),
        attempts: 0,
        notModified: true,
      };
    } catch (err) {
      return { ok: false, error: messageOf(err), attempts: 0, ...stale };
    }
  }
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      const meta = await attempt(job, previous);
      return { ok: true, meta, attempts, notModified: meta === previous };
    } catch (err) {
      const retry = err instanceof DownloadError && err.retryable &&
        attempts <= job.retryDelaysMs.length && !job.signal.aborted;
      if (!retry) {
        return { ok: false, error: messageOf(err), attempts, ...stale };
      }
      job.logger.debug("List download failed; trying again", {
        url: job.url,
        attempt: attempts,
        error: err,
      });
      await pause(job.retryDelaysMs[attempts - 1] ?? 0, job.signal);
    }
  }
}

/**
 * One attempt; returns `previous` itself (with a new fetchedAt) on 304. The
 * slot is held through counting too, so at most `concurrency` bodies are in
 * memory at once.
 */
async function attempt(
  job: ListFetchJob,
  previous: ListFileMeta | undefined,
): Promise<ListFileMeta> {
  const release = await job.limiter.acquire(job.signal).catch(() => {
    throw new DownloadError("stopped before the list was fetched", false);
  });
  try {
    const result = await downloadList({
      url: job.url,
      finalPath: listFilePath(job.listsDir, job.url),
      fetch: job.fetch,
      maxBytes: job.maxBytes,
      timeoutMs: job.timeoutMs,
      signal: job.signal,
      ...(previous?.etag !== undefined ? { etag: previous.etag } : {}),
      ...(previous?.lastModified !== undefined
        ? { lastModified: previous.lastModified }
        : {}),
    });
    if (result.kind === "body") return await accept(job, result, previous);
    if (!previous) {
      throw new DownloadError("HTTP 304 but no copy on disk", false);
    }
    previous.fetchedAt = job.now().toISOString();
    return await recount(job, previous);
  } finally {
    release();
  }
}

/**
 * Checks and counts a downloaded body, then moves it into place. A body
 * that is not a list (HTML, binary), or that holds no rule where the copy
 * on disk held some (an empty reply, a "rate limited" page without HTML
 * markers), never replaces the last good body.
 */
async function accept(
  job: ListFetchJob,
  result: Extract<DownloadResult, { kind: "body" }>,
  previous: ListFileMeta | undefined,
): Promise<ListFileMeta> {
  let counts: ListFileMeta["counts"];
  try {
    counts = await countFile(result.tempPath, job.formats, job.signal);
    const had = previous === undefined ? 0 : ruleTotal(previous.counts);
    if (ruleTotal(counts) === 0 && had > 0) {
      throw new Error(
        `the new copy holds no rules (the one on disk has ${had}); keeping the one on disk`,
      );
    }
  } catch (err) {
    await Deno.remove(result.tempPath).catch(() => {});
    throw new DownloadError(messageOf(err), false);
  }
  // Without its sidecar a body is never trusted, so a crash between these
  // steps costs one full download, never a 304 against the wrong body.
  await Deno.remove(listMetaPath(job.listsDir, job.url)).catch(() => {});
  try {
    await Deno.rename(result.tempPath, listFilePath(job.listsDir, job.url));
  } catch (err) {
    await Deno.remove(result.tempPath).catch(() => {});
    throw err;
  }
  const meta: ListFileMeta = {
    url: job.url,
    digest: result.digest,
    size: result.size,
    fetchedAt: job.now().toISOString(),
    counts,
    ...(result.etag !== undefined ? { etag: result.etag } : {}),
    ...(result.lastModified !== undefined
      ? { lastModified: result.lastModified }
      : {}),
  };
  await writeListMeta(job.listsDir, meta);
  return meta;
}

/** The rules a body holds, read as the best of its formats. */
function ruleTotal(counts: ListFileMeta["counts"]): number {
  return Math.max(0, ...Object.values(counts).map((c) => c?.ruleCount ?? 0));
}

/**
 * Bodies up to this size are counted on the main thread (a few
 * milliseconds; starting a worker takes longer), larger ones in a worker.
 */
const COUNT_IN_WORKER_BYTES = 256 * 1024;

/**
 * The counts of the body at `path` read as each of `formats`; a large body
 * is decoded and counted in a compile worker. Throws when the body is not a
 * list (HTML, binary), cannot be read, or the worker fails.
 */
async function countFile(
  path: string,
  formats: readonly ListFormat[],
  signal: AbortSignal,
): Promise<ListFileMeta["counts"]> {
  const job: CountJob = { id: 1, count: { path, formats: [...formats] } };
  const { size } = await Deno.stat(path);
  const result = size <= COUNT_IN_WORKER_BYTES
    ? runCountJob(job)
    : await runInWorker<CountResult>(job, signal);
  if ("error" in result) throw new Error(result.error);
  return result.counts;
}

/** Adds counts for formats the sidecar lacks (reading the body on disk) and saves it. */
async function recount(
  job: ListFetchJob,
  meta: ListFileMeta,
): Promise<ListFileMeta> {
  const missing = job.formats.filter((f) => meta.counts[f] === undefined);
  if (missing.length > 0) {
    meta.counts = {
      ...meta.counts,
      ...await countFile(
        listFilePath(job.listsDir, job.url),
        missing,
        job.signal,
      ),
    };
  }
  await writeListMeta(job.listsDir, meta);
  return meta;
}
