/**
 * The certificates of the DNS listeners (DoT, DoH, DoQ): one reloader per
 * certificate and key pair, shared by every listener that names the same
 * files, and the self-signed pair (`tls: { auto: selfsigned }`,
 * self_signed_dns.ts) made at start and renewed daily when it runs out.
 */
import type { Logger } from "../log/logger.ts";
import { CertificateReloader } from "./certificate_reloader.ts";
import { selfSignedDnsFiles, type SelfSignedFiles } from "./self_signed_dns.ts";

/** A listener's `tls` setting. */
export interface TlsSource {
  auto: "none" | "selfsigned";
  certFile: string;
  keyFile: string;
}

export interface DnsCertificatesOptions {
  dataDir: string;
  hostname: string;
  clientIdDomain: string;
  logger: Logger;
  /** @default 30000 (certificate_reloader.ts) */
  pollMs?: number;
}

/** How often the self-signed pair is checked for renewal. */
const RENEW_CHECK_MS = 86_400_000;

export class DnsCertificates {
  #opts: DnsCertificatesOptions;
  #reloaders = new Map<string, Promise<CertificateReloader>>();
  /** The reloaders opened, for expiries(). */
  #open = new Set<CertificateReloader>();
  #selfSigned: Promise<SelfSignedFiles> | undefined;
  #renewTimer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: DnsCertificatesOptions) {
    this.#opts = opts;
  }

  /**
   * The reloader for `source`, shared with the listeners that name the same
   * files.
   *
   * @throws {CertificateError} when the pair cannot be served
   */
  async reloaderFor(source: TlsSource): Promise<CertificateReloader> {
    const files = source.auto === "selfsigned"
      ? await this.#selfSignedFiles()
      : source;
    const key = `${files.certFile}\n${files.keyFile}`;
    let reloader = this.#reloaders.get(key);
    if (reloader === undefined) {
      reloader = CertificateReloader.open(files.certFile, files.keyFile, {
        logger: this.#opts.logger,
        ...(this.#opts.pollMs !== undefined && { pollMs: this.#opts.pollMs }),
      });
      this.#reloaders.set(key, reloader);
      reloader.then(
        (r) => this.#open.add(r),
        () => this.#reloaders.delete(key),
      );
    }
    return await reloader;
  }

  /** The self-signed files (made once), with a daily renewal check. */
  #selfSignedFiles(): Promise<SelfSignedFiles> {
    if (this.#selfSigned === undefined) {
      this.#selfSigned = selfSignedDnsFiles(this.#opts);
      this.#renewTimer = setInterval(() => {
        // Renewed files are picked up by their reloader like any change.
        selfSignedDnsFiles(this.#opts).catch((error) =>
          this.#opts.logger.error(
            "Cannot renew the self-signed certificate of the DNS listeners",
            { error },
          )
        );
      }, RENEW_CHECK_MS);
    }
    return this.#selfSigned;
  }

  /** Where the self-signed CA is, when one is in use (for the docs and logs). */
  async selfSignedCa(): Promise<string | undefined> {
    return this.#selfSigned === undefined
      ? undefined
      : (await this.#selfSigned).caFile;
  }

  /** When each certificate served now expires, by certificate file. */
  expiries(): { certFile: string; notAfter: Date }[] {
    return [...this.#open].map((r) => ({
      certFile: r.certFile,
      notAfter: r.current().notAfter,
    }));
  }

  close(): void {
    clearInterval(this.#renewTimer);
    for (const pending of this.#reloaders.values()) {
      pending.then((r) => r.close(), () => {});
    }
    this.#reloaders.clear();
    this.#open.clear();
  }
}
