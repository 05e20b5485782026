/**
 * Reads a text file that must be UTF-8 (kudurru.yaml, files of objects).
 * `Deno.readTextFile` replaces bytes that are not UTF-8 with U+FFFD without
 * a word, so a file saved in Latin-1 would load with its names changed;
 * here it is an error that says where the first bad byte is.
 */

const STRICT = new TextDecoder("utf-8", { fatal: true });

/** The file's text; throws naming the line and column of invalid UTF-8. */
export async function readUtf8File(path: string): Promise<string> {
  return decodeUtf8(await Deno.readFile(path));
}

/** readUtf8File, synchronously. */
export function readUtf8FileSync(path: string): string {
  return decodeUtf8(Deno.readFileSync(path));
}

/** `bytes` as UTF-8 text; throws naming the line and column of invalid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return STRICT.decode(bytes);
  } catch {
    const at = firstInvalidByte(bytes);
    const before = new TextDecoder().decode(bytes.subarray(0, at));
    const lines = before.split("\n");
    throw new Error(
      `not UTF-8: byte 0x${hex(bytes[at])} at line ${lines.length}, column ${
        lines.at(-1)!.length + 1
      } (save the file as UTF-8)`,
    );
  }
}

/** Offset where the first invalid sequence starts (RFC 3629 §4). */
function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const [length, low, high] = sequenceRule(lead);
    if (length === 0 || i + length > bytes.length) return i;
    // The second byte's range rules out overlong forms and surrogates.
    if (bytes[i + 1]! < low || bytes[i + 1]! > high) return i;
    for (let k = 2; k < length; k++) {
      if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** Sequence length and the second byte's range for a lead byte; 0 when invalid. */
function sequenceRule(lead: number): [number, number, number] {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  return [0, 0, 0];
}

function hex(byte: number | undefined): string {
  return (byte ?? 0).toString(16).padStart(2, "0");
}
