/**
 * `tls: { auto: selfsigned }` for the DNS listeners (DoT, DoH, DoQ): a
 * private CA and a leaf certificate it signs, made once and kept in
 * `<dataDir>/keys/` (dns-ca.crt, dns-ca.key, dns.crt, dns.key). A CA plus
 * a leaf rather than one self-signed certificate, because Deno's QUIC
 * refuses a server certificate that is itself a CA, and because a client
 * can then trust `dns-ca.crt` once while the leaf is renewed. The leaf
 * names this host, localhost and the loopback addresses, and with
 * `listeners.clientIdDomain` that domain and every name one label under it
 * (the client-ID names, client_id.ts). Made again when less than 30 days
 * are left or the names changed.
 */
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { loadX509, privateKeyPem, randomSerial, writePrivate } from "./x509.ts";

/** How long the CA is valid; the leaf, as long as clients accept (825 days). */
const CA_DAYS = 3650;
const LEAF_DAYS = 825;
const RENEW_DAYS = 30;
const DAY_MS = 86_400_000;
const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** Where the made files are. */
export interface SelfSignedFiles {
  certFile: string;
  keyFile: string;
  /** What clients trust (`kdig +tls-ca=`, a phone's user CA store). */
  caFile: string;
}

export interface SelfSignedOptions {
  dataDir: string;
  hostname: string;
  clientIdDomain: string;
  logger: Logger;
  now?: number;
}

/** The files under `keys/`, made or renewed when needed. */
export async function selfSignedDnsFiles(
  opts: SelfSignedOptions,
): Promise<SelfSignedFiles> {
  const dir = join(opts.dataDir, "keys");
  const files = {
    caFile: join(dir, "dns-ca.crt"),
    caKeyFile: join(dir, "dns-ca.key"),
    certFile: join(dir, "dns.crt"),
    keyFile: join(dir, "dns.key"),
  };
  const now = opts.now ?? Date.now();
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  let ca = await readPair(files.caFile, files.caKeyFile);
  let caMade = false;
  if (ca === undefined || daysLeft(ca.cert, now) < RENEW_DAYS) {
    ca = await makeCa(opts.hostname, now);
    await writePrivate(files.caKeyFile, ca.key);
    await writePrivate(files.caFile, ca.cert, 0o644);
    caMade = true;
  }
  const names = leafNames(opts.hostname, opts.clientIdDomain);
  const leaf = await readPair(files.certFile, files.keyFile);
  if (
    caMade || leaf === undefined || daysLeft(leaf.cert, now) < RENEW_DAYS ||
    !coversNames(leaf.cert, names) || !signedBy(leaf.cert, ca.cert)
  ) {
    const made = await makeLeaf(ca, names, now);
    // The key first: a reloader that sees the new certificate with the
    // old key keeps the old pair until the key follows.
    await writePrivate(files.keyFile, made.key);
    await writePrivate(files.certFile, made.cert + ca.cert, 0o644);
    opts.logger.info("Made a certificate for the DNS listeners", {
      path: files.certFile,
      ca: files.caFile,
      names,
      days: LEAF_DAYS,
    });
  }
  return {
    certFile: files.certFile,
    keyFile: files.keyFile,
    caFile: files.caFile,
  };
}

/** The leaf's DNS names. */
function leafNames(hostname: string, clientIdDomain: string): string[] {
  const domain = clientIdDomain.toLowerCase().replace(/\.$/, "");
  const names = [hostname.toLowerCase(), "localhost"];
  if (domain !== "") names.push(domain, `*.${domain}`);
  return [...new Set(names)];
}

interface Pair {
  cert: string;
  key: string;
}

async function readPair(
  certFile: string,
  keyFile: string,
): Promise<Pair | undefined> {
  try {
    return {
      cert: await Deno.readTextFile(certFile),
      key: await Deno.readTextFile(keyFile),
    };
  } catch {
    return undefined; // made anew
  }
}

/** Days the first certificate in `pem` is still valid (≤ 0: expired or unreadable). */
function daysLeft(pem: string, now: number): number {
  try {
    return (Date.parse(new X509Certificate(pem).validTo) - now) / DAY_MS;
  } catch {
    return 0;
  }
}

function coversNames(pem: string, names: string[]): boolean {
  try {
    const san = new X509Certificate(pem).subjectAltName ?? "";
    const have = new Set(san.split(", "));
    return names.every((n) => have.has(`DNS:${n}`));
  } catch {
    return false;
  }
}

function signedBy(leafPem: string, caPem: string): boolean {
  try {
    return new X509Certificate(leafPem).verify(
      new X509Certificate(caPem).publicKey,
    );
  } catch {
    return false;
  }
}

async function makeCa(hostname: string, now: number): Promise<Pair> {
  const x509 = await loadX509();
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, [
    "sign",
    "verify",
  ]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=kudurru DNS CA ${hostname}`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    cert: cert.toString("pem") + "\n",
    key: await privateKeyPem(keys.privateKey),
  };
}

async function makeLeaf(ca: Pair, names: string[], now: number): Promise<Pair> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await crypto.subtle.importKey(
    "pkcs8",
    x509.PemConverter.decode(ca.key)[0]!,
    ALGORITHM,
    false,
    ["sign"],
  );
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, [
    "sign",
    "verify",
  ]);
  const notAfter = Math.min(
    now + LEAF_DAYS * DAY_MS,
    caCert.notAfter.getTime(),
  );
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${names[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(notAfter),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names.map((value) => ({ type: "dns" as const, value })),
        { type: "ip", value: "127.0.0.1" },
        { type: "ip", value: "::1" },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return {
    cert: cert.toString("pem") + "\n",
    key: await privateKeyPem(keys.privateKey),
  };
}
