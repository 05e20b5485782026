/**
 * One certificate and key pair, re-read when its files change: a file
 * watch on their directories (a rename into place, or Kubernetes' symlink
 * swap of a mounted Secret, shows up there) and a poll every 30 s for
 * file systems that do not report changes. A new pair is checked
 * (certificate_pair.ts) before anyone sees it: one that does not match,
 * or a file that is missing for a moment, keeps the previous pair serving
 * and is logged once. Every TLS listener with these files shares one
 * reloader (tls_certificates.ts).
 */
import { dirname } from "node:path";
import type { Logger } from "../log/logger.ts";
import { type CheckedPair, readCertificatePair } from "./certificate_pair.ts";

/** How often the files are read again even without a change event. */
export const CERTIFICATE_POLL_MS = 30_000;
/** Change events closer than this are one change (a rotation writes two files). */
const SETTLE_MS = 500;

export interface CertificateReloaderOptions {
  logger: Logger;
  /** @default 30000 */
  pollMs?: number;
  /** Watch the directories for changes. @default true */
  watch?: boolean;
}

export class CertificateReloader {
  readonly certFile: string;
  readonly keyFile: string;
  #current: CheckedPair;
  #logger: Logger;
  #listeners = new Set<(pair: CheckedPair) => void>();
  #poll: ReturnType<typeof setInterval>;
  #settle: ReturnType<typeof setTimeout> | undefined;
  #watcher: Deno.FsWatcher | undefined;
  /** The last failure logged, so a pair that stays broken is logged once. */
  #lastFailure = "";
  #reloading: Promise<void> | undefined;
  #closed = false;

  private constructor(
    certFile: string,
    keyFile: string,
    first: CheckedPair,
    opts: CertificateReloaderOptions,
  ) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.#current = first;
    this.#logger = opts.logger.with({ certFile, keyFile });
    this.#poll = setInterval(
      () => this.reload(),
      opts.pollMs ?? CERTIFICATE_POLL_MS,
    );
    if (opts.watch ?? true) this.#watch();
  }

  /**
   * Reads the pair and starts watching it.
   *
   * @throws {CertificateError} when the pair cannot be served now
   */
  static async open(
    certFile: string,
    keyFile: string,
    opts: CertificateReloaderOptions,
  ): Promise<CertificateReloader> {
    const first = await readCertificatePair(certFile, keyFile);
    return new CertificateReloader(certFile, keyFile, first, opts);
  }

  /** The pair served now. */
  current(): CheckedPair {
    return this.#current;
  }

  /** Calls `listener` with each new pair; returns the unsubscribe. */
  onChange(listener: (pair: CheckedPair) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the files again now; resolves once done (a change is announced). */
  reload(): Promise<void> {
    this.#reloading ??= this.#reload().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #reload(): Promise<void> {
    if (this.#closed) return;
    let next: CheckedPair;
    try {
      next = await readCertificatePair(this.certFile, this.keyFile);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (why !== this.#lastFailure) {
        this.#logger.warn(
          "The certificate files changed but cannot be served; the previous certificate goes on",
          { why, notAfter: this.#current.notAfter.toISOString() },
        );
        this.#lastFailure = why;
      }
      return;
    }
    this.#lastFailure = "";
    const held = this.#current.pair;
    if (next.pair.cert === held.cert && next.pair.key === held.key) return;
    if (this.#closed) return;
    this.#current = next;
    this.#logger.info("Certificate reloaded", {
      notAfter: next.notAfter.toISOString(),
    });
    for (const listener of this.#listeners) listener(next);
  }

  #watch(): void {
    const dirs = [...new Set([dirname(this.certFile), dirname(this.keyFile)])];
    try {
      this.#watcher = Deno.watchFs(dirs, { recursive: false });
    } catch (error) {
      // The poll still finds changes, 30 s later.
      this.#logger.warn("Cannot watch the certificate files; polling only", {
        error,
      });
      return;
    }
    (async () => {
      try {
        for await (const _event of this.#watcher!) {
          clearTimeout(this.#settle);
          this.#settle = setTimeout(() => this.reload(), SETTLE_MS);
        }
      } catch {
        // closed
      }
    })();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#poll);
    clearTimeout(this.#settle);
    try {
      this.#watcher?.close();
    } catch {
      // already closed
    }
    this.#listeners.clear();
  }
}
