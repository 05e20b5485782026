/**
 * Byte sizes written the way operators write them ("10GiB", "512MB", "4096"),
 * for keys such as querylog.retention.maxDBBytes.
 */
import { z } from "zod";

const UNIT_BYTES: Record<string, number> = {
  "": 1,
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KIB: 2 ** 10,
  MIB: 2 ** 20,
  GIB: 2 ** 30,
  TIB: 2 ** 40,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/;

/** Bytes in a size text, or undefined when the text is not one. */
export function parseSize(text: string): number | undefined {
  const m = SIZE.exec(text.trim());
  if (!m) return undefined;
  const unit = UNIT_BYTES[m[2]!.toUpperCase()];
  if (unit === undefined) return undefined;
  return Math.floor(Number(m[1]) * unit);
}

/**
 * The text for a number of bytes in the unit that writes it shortest
 * ("64MiB", "10GiB", "512MB", "4096"); parseSize reads it back exactly.
 */
export function formatSize(bytes: number): string {
  let best = String(bytes);
  for (const [unit, size] of Object.entries(UNIT_BYTES)) {
    if (size === 1 || bytes === 0 || bytes % size !== 0) continue;
    const name = unit.replace("I", "i");
    const text = `${bytes / size}${name}`;
    if (text.length <= best.length) best = text;
  }
  return best;
}

/** A zod string that must parse as a size; stays text in the object. */
export function sizeSchema() {
  return z.string().refine((v) => parseSize(v) !== undefined, {
    message: 'must be a size such as "512MiB", "10GiB" or "1GB"',
  });
}

/**
 * A size as sizeSchema checks it, parsed to bytes: the settings' form,
 * written "64MiB" in kudurru.yaml and a number in Config.
 */
export function sizeBytesSchema() {
  return sizeSchema().transform((text) => parseSize(text)!);
}
