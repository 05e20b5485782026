/**
 * The sidecar of a downloaded list body (`<sha256(url)>.meta.json`): the
 * validators for the next conditional GET, the digest and size of the body,
 * when it was last confirmed, and the rule counts per format. It describes
 * the body next to it, so a node only sends If-None-Match for a copy it
 * really has (a new leader with an empty disk downloads in full).
 */
import type { ListFormat } from "./types.ts";
import { listFilePath, listMetaPath, tempPathFor } from "./list_files.ts";

/** What parsing a body with one format found. */
export interface SourceCounts {
  /** The format used ("auto" resolved). */
  format: Exclude<ListFormat, "auto">;
  ruleCount: number;
  invalid: number;
  unsupported: number;
  title?: string;
  /** Up to 5 invalid or unsupported lines, as the parser describes them. */
  examples?: string[];
}

export interface ListFileMeta {
  url: string;
  etag?: string;
  lastModified?: string;
  /** sha256 hex of the body. */
  digest: string;
  size: number;
  /** ISO time of the last 200 or 304. */
  fetchedAt: string;
  /** Counts keyed by the source's declared format (the same URL may be read as two formats). */
  counts: Partial<Record<ListFormat, SourceCounts>>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseMeta(text: string, url: string): ListFileMeta | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    !isRecord(raw) || raw.url !== url || typeof raw.digest !== "string" ||
    typeof raw.size !== "number" || typeof raw.fetchedAt !== "string" ||
    Number.isNaN(Date.parse(raw.fetchedAt)) || !isRecord(raw.counts)
  ) return undefined;
  return {
    url,
    digest: raw.digest,
    size: raw.size,
    fetchedAt: raw.fetchedAt,
    counts: raw.counts as ListFileMeta["counts"],
    ...(typeof raw.etag === "string" ? { etag: raw.etag } : {}),
    ...(typeof raw.lastModified === "string"
      ? { lastModified: raw.lastModified }
      : {}),
  };
}

/**
 * The sidecar of `url`, or undefined when there is no usable copy: no
 * sidecar, an unreadable one, or a body that is missing or of another size.
 */
export async function readListMeta(
  listsDir: string,
  url: string,
): Promise<ListFileMeta | undefined> {
  let text: string;
  let size: number;
  try {
    text = await Deno.readTextFile(listMetaPath(listsDir, url));
    size = (await Deno.stat(listFilePath(listsDir, url))).size;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  const meta = parseMeta(text, url);
  return meta && meta.size === size ? meta : undefined;
}

/** Writes the sidecar atomically (temporary file, then rename). */
export async function writeListMeta(
  listsDir: string,
  meta: ListFileMeta,
): Promise<void> {
  const path = listMetaPath(listsDir, meta.url);
  const temp = tempPathFor(path);
  try {
    await Deno.mkdir(listsDir, { recursive: true });
    await Deno.writeTextFile(temp, JSON.stringify(meta, null, 2) + "\n");
    await Deno.rename(temp, path);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}
