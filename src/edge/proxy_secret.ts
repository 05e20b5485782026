/**
 * The PROXYv2 shared secret: dnsdist adds it to every query as TLV 0xE0
 * (SetAdditionalProxyProtocolValueAction) and kudurru checks it
 * (listeners.proxyProtocolSecretFile), so a host that can reach kudurru but
 * is not the edge cannot claim another client's address. Both ends read the
 * file the same way (proxySecretFrom): its bytes, with trailing CR and LF
 * removed (an editor's or `echo`'s final newline is not part of the secret).
 */

import {
  PROXY_SECRET_MIN_LENGTH,
  PROXY_SECRET_TLV,
  proxySecretFrom,
} from "../listeners/proxy_trust.ts";

export { PROXY_SECRET_TLV, proxySecretFrom };

/** The shortest secret accepted, in bytes. */
export const MIN_PROXY_SECRET_BYTES = PROXY_SECRET_MIN_LENGTH;

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
