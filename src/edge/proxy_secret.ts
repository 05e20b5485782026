/**
 * The PROXYv2 shared secret: dnsdist adds it to every query as TLV 0xE0
 * (SetAdditionalProxyProtocolValueAction) and kudurru checks it
 * (listeners.proxyProtocolSecretFile), so a host that can reach kudurru but
 * is not the edge cannot claim another client's address. Both ends must read
 * the file the same way: its bytes, with trailing CR and LF removed (an
 * editor's or `echo`'s final newline is not part of the secret).
 */

/** The TLV type: the first of the PROXY protocol's custom range (0xE0-0xEF). */
export const PROXY_SECRET_TLV = 0xe0;

/** The shortest secret accepted, in bytes. */
export const MIN_PROXY_SECRET_BYTES = 32;

/**
 * The secret in a file's bytes: trailing CR/LF trimmed.
 *
 * @returns the secret, or a sentence saying why it is not one
 */
export function proxySecretFrom(bytes: Uint8Array): Uint8Array | string {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) {
    end--;
  }
  if (end < MIN_PROXY_SECRET_BYTES) {
    return `holds ${end} bytes of secret; at least ${MIN_PROXY_SECRET_BYTES} are needed (make one with: head -c 48 /dev/urandom | base64 > FILE)`;
  }
  return bytes.slice(0, end);
}

/**
 * Reads the secret file.
 *
 * @throws {Error} naming the file: unreadable, or too short
 */
export function readProxySecretFile(
  path: string,
  readFile: (path: string) => Uint8Array = Deno.readFileSync,
): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = readFile(path);
  } catch (error) {
    throw new Error(
      `Cannot read the PROXYv2 secret file "${path}": ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const secret = proxySecretFrom(bytes);
  if (typeof secret === "string") {
    throw new Error(`The PROXYv2 secret file "${path}" ${secret}`);
  }
  return secret;
}
