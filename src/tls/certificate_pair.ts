/**
 * Reading and checking a certificate and its key before any listener
 * serves them: the chain's first certificate must parse, and the key must
 * be the private half of that certificate's public key. A rotation that
 * replaced one file and not yet the other (a "half-rotated pair") fails
 * here, so the previous pair keeps serving (certificate_reloader.ts).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { CertificatePair } from "../listeners/worker_messages.ts";

/** Why a pair cannot be served; the message says what to fix. */
export class CertificateError extends Error {
  override name = "CertificateError";
}

/** A pair that belongs together, and when its certificate expires. */
export interface CheckedPair {
  pair: CertificatePair;
  /** The leaf certificate's notAfter. */
  notAfter: Date;
  /** Its subjectAltName entries, as OpenSSL prints them ("DNS:a, IP Address:…"). */
  names: string;
}

/**
 * Checks that `key` belongs to the first certificate of `cert`.
 *
 * @throws {CertificateError} naming the file that is wrong
 */
export function checkCertificatePair(
  pair: CertificatePair,
  files: { certFile: string; keyFile: string },
): CheckedPair {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pair.cert);
  } catch (error) {
    throw new CertificateError(
      `${files.certFile} holds no PEM certificate: ${messageOf(error)}`,
    );
  }
  let key;
  try {
    key = createPrivateKey(pair.key);
  } catch (error) {
    throw new CertificateError(
      `${files.keyFile} holds no PEM private key: ${messageOf(error)}`,
    );
  }
  if (!leaf.checkPrivateKey(key)) {
    throw new CertificateError(
      `${files.keyFile} is not the key of the certificate in ${files.certFile} (one of them was replaced and not the other yet?)`,
    );
  }
  return {
    pair,
    notAfter: new Date(leaf.validTo),
    names: leaf.subjectAltName ?? "",
  };
}

/**
 * Reads and checks the pair.
 *
 * @throws {CertificateError} when a file cannot be read or they do not match
 */
export async function readCertificatePair(
  certFile: string,
  keyFile: string,
): Promise<CheckedPair> {
  const read = async (path: string) => {
    try {
      return await Deno.readTextFile(path);
    } catch (error) {
      throw new CertificateError(`Cannot read ${path}: ${messageOf(error)}`);
    }
  };
  const [cert, key] = await Promise.all([read(certFile), read(keyFile)]);
  return checkCertificatePair({ cert, key }, { certFile, keyFile });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
