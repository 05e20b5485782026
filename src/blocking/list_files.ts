/**
 * Where downloaded block-list bodies live on disk
 * (docs/design.md#data-directory): one file per URL, named by the sha256 of
 * the URL, under the lists directory. The list
 * fetcher writes them; the compile side reads them through listFilePath.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { hexOf } from "../dns/hex.ts";

/** Lowercase hex sha256 of a string (UTF-8) or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The body of `url` as last fetched successfully: `<listsDir>/<sha256hex(url)>`. */
export function listFilePath(listsDir: string, url: string): string {
  return join(listsDir, sha256Hex(url));
}

/** The sidecar with the body's validators and counts: `<body path>.meta.json`. */
export function listMetaPath(listsDir: string, url: string): string {
  return `${listFilePath(listsDir, url)}.meta.json`;
}

/** Marks temporary files; a crash can leave them behind, so they are recognisable. */
export const TEMP_MARKER = ".tmp-";

/** A fresh temporary name next to `finalPath`, so the rename stays on one filesystem. */
export function tempPathFor(finalPath: string): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  return `${finalPath}${TEMP_MARKER}${hexOf(random)}`;
}
