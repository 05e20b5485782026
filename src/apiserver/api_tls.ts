/**
 * The API's TLS certificate: the configured files, or with
 * `listeners.api.tls.auto: selfsigned` one made here and kept in
 * `<dataDir>/keys/` (so browsers and `curl --cacert` can pin it across
 * restarts), renewed when it has less than 30 days left.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import {
  loadX509,
  privateKeyPem,
  randomSerial,
  writePrivate,
} from "../tls/x509.ts";

/** PEM certificate chain and key, as Deno.serve takes them. */
export interface TlsFiles {
  cert: string;
  key: string;
}

/** `listeners.api.tls` as far as this needs it. */
export interface ApiTlsSettings {
  auto: "none" | "selfsigned";
  certFile: string;
  keyFile: string;
}

/** How long a self-signed certificate is valid. */
const VALID_DAYS = 825;
/** Renewed when it has less than this left. */
const RENEW_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * The certificate to serve with, or undefined for plain HTTP.
 *
 * @throws {Error} naming the file when a configured one cannot be read
 */
export async function apiTlsFiles(
  settings: ApiTlsSettings,
  opts: {
    dataDir: string;
    hostname: string;
    logger: Logger;
    now?: () => number;
  },
): Promise<TlsFiles | undefined> {
  if (settings.certFile !== "" || settings.keyFile !== "") {
    return {
      cert: await readPem(settings.certFile, "listeners.api.tls.certFile"),
      key: await readPem(settings.keyFile, "listeners.api.tls.keyFile"),
    };
  }
  if (settings.auto !== "selfsigned") return undefined;
  const dir = join(opts.dataDir, "keys");
  const certPath = join(dir, "api.crt");
  const keyPath = join(dir, "api.key");
  const now = opts.now?.() ?? Date.now();
  const held = await readPair(certPath, keyPath);
  if (
    held !== undefined && await validFor(held.cert, now) > RENEW_DAYS * DAY_MS
  ) {
    return held;
  }
  const made = await selfSigned(opts.hostname, now);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await writePrivate(keyPath, made.key);
  await writePrivate(certPath, made.cert, 0o644);
  opts.logger.info("Made a self-signed certificate for the API", {
    path: certPath,
    hostname: opts.hostname,
    days: VALID_DAYS,
  });
  return made;
}

async function readPem(path: string, setting: string): Promise<string> {
  if (path === "") {
    throw new Error(`Cannot serve the API over TLS: ${setting} is empty`);
  }
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new Error(
      `Cannot read ${setting} "${path}": ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function readPair(
  certPath: string,
  keyPath: string,
): Promise<TlsFiles | undefined> {
  try {
    return {
      cert: await Deno.readTextFile(certPath),
      key: await Deno.readTextFile(keyPath),
    };
  } catch {
    return undefined; // made anew
  }
}

/** Milliseconds the certificate is still valid for (≤ 0: expired or unreadable). */
async function validFor(pem: string, now: number): Promise<number> {
  try {
    const x509 = await loadX509();
    const cert = new x509.X509Certificate(pem);
    return cert.notAfter.getTime() - now;
  } catch {
    return 0;
  }
}

/** An ECDSA P-256 certificate for `hostname`, localhost and the loopback addresses. */
async function selfSigned(hostname: string, now: number): Promise<TlsFiles> {
  const x509 = await loadX509();
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const names = [...new Set([hostname, "localhost"])].map((value) => ({
    type: "dns" as const,
    value,
  }));
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${hostname}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + VALID_DAYS * DAY_MS),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names,
        { type: "ip", value: "127.0.0.1" },
        { type: "ip", value: "::1" },
      ]),
    ],
  });
  return {
    cert: cert.toString("pem"),
    key: await privateKeyPem(keys.privateKey),
  };
}
