/**
 * Removes the files of URLs that no enabled BlockList source uses any more
 * (the body, its sidecar, and temporary files a crash left), an hour after
 * they were first seen unwanted: bodies can be 64 MiB each, and a URL with a
 * rotating token or a list tried and dropped would otherwise stay on disk
 * for good. Only files named like the fetcher's (`<sha256 hex of the URL>`
 * and suffixes) are touched, whatever else shares the directory.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { sha256Hex } from "../blocking/list_files.ts";

/** How long a URL's files stay after its last source went (or was disabled). */
export const UNWANTED_GRACE_MS = 60 * 60_000;
/** The directory is read at most this often. */
export const SWEEP_INTERVAL_MS = 10 * 60_000;

const URL_HASH = /^[0-9a-f]{64}/;

export class ListFilesSweep {
  readonly #listsDir: string;
  readonly #logger: Logger;
  /** URL hash → when it was first seen unwanted. */
  readonly #unwantedSince = new Map<string, number>();
  #lastSweep = -Infinity;

  constructor(listsDir: string, logger: Logger) {
    this.#listsDir = listsDir;
    this.#logger = logger;
  }

  /** Whether SWEEP_INTERVAL_MS has passed since the last sweep. */
  isDue(now: number): boolean {
    return now - this.#lastSweep >= SWEEP_INTERVAL_MS;
  }

  /** Removes what has been unwanted for UNWANTED_GRACE_MS. */
  async sweep(wantedUrls: Iterable<string>, now: number): Promise<void> {
    this.#lastSweep = now;
    const wanted = new Set<string>();
    for (const url of wantedUrls) wanted.add(sha256Hex(url));
    const present = new Map<string, string[]>();
    try {
      for await (const entry of Deno.readDir(this.#listsDir)) {
        const hash = URL_HASH.exec(entry.name)?.[0];
        if (!entry.isFile || hash === undefined || wanted.has(hash)) continue;
        present.set(hash, [...present.get(hash) ?? [], entry.name]);
      }
    } catch (err) {
      this.#logger.warn("Cannot read the lists directory", {
        dir: this.#listsDir,
        error: err,
      });
      return;
    }
    for (const hash of this.#unwantedSince.keys()) {
      if (!present.has(hash)) this.#unwantedSince.delete(hash);
    }
    for (const [hash, names] of present) {
      const since = this.#unwantedSince.get(hash);
      if (since === undefined) {
        this.#unwantedSince.set(hash, now);
        continue;
      }
      if (now - since < UNWANTED_GRACE_MS) continue;
      for (const name of names) await this.#remove(name);
      this.#unwantedSince.delete(hash);
    }
  }

  async #remove(name: string): Promise<void> {
    try {
      await Deno.remove(join(this.#listsDir, name));
      this.#logger.info("Removed the file of a list no longer used", { name });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      this.#logger.warn("Cannot remove an unused list file", {
        name,
        error: err,
      });
    }
  }
}
