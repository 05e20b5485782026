/**
 * Object names for what a BIND import makes: a DNSZone named after its zone
 * (`example.com.` → `example-com`, the root → `root`), its record sets after
 * the DNSZone, upstream groups after the forward zone, TSIG key references
 * after the key. Every name is a DNS-1123 label (OBJECT_NAME_RE in meta.ts,
 * and the upstream group key pattern of kudurru.yaml), and unique.
 */

/** Room left for the `-bind-NN` suffix of record sets. */
const MAX_BASE = 200;

/** A DNS-1123 label made from any text: lowercase, `-` for the rest. */
export function labelFrom(text: string, fallback: string): string {
  const label = text.toLowerCase().replace(/\.$/, "")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, MAX_BASE)
    .replace(/-+$/, "");
  return label === "" ? fallback : label;
}

/** Hands out names not given before: `x`, then `x-2`, `x-3`… */
export class UniqueNames {
  readonly #taken = new Set<string>();

  take(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}-${n}`;
    this.#taken.add(name);
    return name;
  }
}

/** The DNSZone object name for a zone (lowercase, absolute). */
export function zoneObjectBase(zoneName: string): string {
  return zoneName === "." ? "root" : labelFrom(zoneName, "zone");
}

/**
 * The reference (file name under `<dataDir>/keys/tsig/`) a TSIG key is
 * imported as: `tsigzone.` → `tsigzone`, `rndc_key` → `rndc-key`.
 */
export function tsigKeyRef(keyName: string): string {
  const ref = keyName.toLowerCase().replace(/\.$/, "")
    .replace(/[^a-z0-9.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "").slice(0, 253);
  return ref === "" ? "key" : ref;
}
