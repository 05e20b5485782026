/**
 * `kudurru doctor`'s look at the TLS certificates the listeners serve
 * (DoT, DoH, DoQ, the API): each pair reads, the key is the certificate's
 * (src/tls/certificate_pair.ts), and the certificate is not expired or
 * about to be.
 */
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import type { Config } from "../config/schema.ts";
import { readCertificatePair } from "../tls/certificate_pair.ts";
import { messageOf } from "../server/disk_errors.ts";
import { fail, type Finding, ok, warn } from "./doctor_report.ts";

const CHECK = "certificate";
const DAY_MS = 86_400_000;

/** Under this many days left, a warning. */
export const EXPIRY_WARN_DAYS = 14;

/** One certificate and key the server serves. */
export interface CertificateSource {
  /** The settings that name it: "listeners.dot[0].tls". */
  settings: string[];
  certFile: string;
  keyFile: string;
  /** Made by kudurru in keys/ (`auto: selfsigned`) and renewed at start. */
  auto: boolean;
}

/** A source as read: the certificate's dates, or why it does not read. */
export interface ReadCertificate {
  source: CertificateSource;
  notBefore?: Date;
  notAfter?: Date;
  error?: string;
  missing?: boolean;
}

/** Every pair the configuration serves, each once. */
export function certificateSources(
  listeners: Config["listeners"],
  dataDir: string,
): CertificateSource[] {
  const byFiles = new Map<string, CertificateSource>();
  const add = (
    setting: string,
    tls: { auto: string; certFile: string; keyFile: string },
    autoFiles: [string, string],
  ) => {
    const auto = tls.auto === "selfsigned";
    const [certFile, keyFile] = auto
      ? autoFiles.map((f) => join(dataDir, "keys", f))
      : [tls.certFile, tls.keyFile];
    if (!auto && certFile === "" && keyFile === "") return;
    const key = `${certFile}\0${keyFile}`;
    const known = byFiles.get(key);
    if (known) known.settings.push(setting);
    else {
      byFiles.set(key, {
        settings: [setting],
        certFile: certFile!,
        keyFile: keyFile!,
        auto,
      });
    }
  };
  const dns: [string, string] = ["dns.crt", "dns.key"];
  listeners.dot.forEach((l, i) => add(`listeners.dot[${i}].tls`, l.tls, dns));
  listeners.doh.forEach((l, i) => {
    if (l.tls) add(`listeners.doh[${i}].tls`, l.tls, dns);
  });
  listeners.doq.forEach((l, i) => add(`listeners.doq[${i}].tls`, l.tls, dns));
  add("listeners.api.tls", listeners.api.tls, ["api.crt", "api.key"]);
  return [...byFiles.values()];
}

/** Reads each source; never throws. */
export async function readCertificates(
  sources: readonly CertificateSource[],
): Promise<ReadCertificate[]> {
  return await Promise.all(sources.map(async (source) => {
    try {
      const checked = await readCertificatePair(
        source.certFile,
        source.keyFile,
      );
      const leaf = new X509Certificate(checked.pair.cert);
      return {
        source,
        notBefore: new Date(leaf.validFrom),
        notAfter: checked.notAfter,
      };
    } catch (err) {
      const missing = !(await exists(source.certFile)) ||
        !(await exists(source.keyFile));
      return { source, error: messageOf(err), missing };
    }
  }));
}

/** The verdict on one certificate at `now`. */
export function certificateFinding(read: ReadCertificate, now: Date): Finding {
  const { source } = read;
  const what = `${source.certFile} (${source.settings.join(", ")})`;
  const renew = source.auto
    ? "restart kudurru serve, which makes a new one"
    : "renew it and replace both files";
  if (read.error !== undefined || read.notAfter === undefined) {
    if (source.auto && read.missing) {
      return ok(
        CHECK,
        `${what}: not made yet; kudurru serve makes it at start`,
      );
    }
    return fail(
      CHECK,
      `${read.error}: ${
        source.auto
          ? "remove both files and restart kudurru serve to make new ones"
          : "fix the files the settings name"
      }`,
    );
  }
  const left = read.notAfter.getTime() - now.getTime();
  const until = read.notAfter.toISOString();
  if (left <= 0) {
    return fail(CHECK, `${what} expired at ${until}: ${renew}`);
  }
  const days = Math.floor(left / DAY_MS);
  if (days < EXPIRY_WARN_DAYS) {
    return warn(CHECK, `${what} expires in ${days} days (${until}): ${renew}`);
  }
  return ok(CHECK, `${what} is valid until ${until} (${days} days)`);
}

async function exists(path: string): Promise<boolean> {
  if (path === "") return false;
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
