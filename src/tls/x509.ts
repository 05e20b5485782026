/**
 * What the certificate code shares: @peculiar/x509 loaded on first use
 * (it wants the reflect-metadata polyfill loaded before it), random serial
 * numbers, and key files written so that a crash never leaves half a key.
 */

/** Loads @peculiar/x509 (and its polyfill) when a certificate is made or read. */
export async function loadX509() {
  await import("reflect-metadata");
  return await import("@peculiar/x509");
}

/** A positive 128-bit serial number in hex (RFC 5280 §4.1.2.2: at most 20 octets). */
export function randomSerial(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("").replace(/^[89a-f]/, "1");
}

/** Writes `text` by rename, so a crash never leaves half a key. */
export async function writePrivate(
  path: string,
  text: string,
  mode = 0o600,
): Promise<void> {
  const temp = `${path}.tmp-${crypto.randomUUID()}`;
  await Deno.writeTextFile(temp, text, { mode });
  await Deno.chmod(temp, mode);
  await Deno.rename(temp, path);
}

/** A key pair's private half as PKCS #8 PEM. */
export async function privateKeyPem(key: CryptoKey): Promise<string> {
  const x509 = await loadX509();
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(pkcs8, "PRIVATE KEY");
}
