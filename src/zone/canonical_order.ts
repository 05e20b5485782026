/**
 * Canonical DNS name order (RFC 4034 §6.1): names compare label by label
 * from the root down, each label as lowercase octets, a shorter label
 * sorting first when it is a prefix of the other. Used to sort a zone's
 * RRsets so content (and its hash) does not depend on declaration order.
 */
import { splitLabels } from "../dns/name.ts";

/** Decodes `\DDD` and `\X` escapes of one label and folds ASCII case. */
function labelOctets(label: string): number[] {
  const octets: number[] = [];
  for (let i = 0; i < label.length; i++) {
    let code = label.charCodeAt(i);
    if (label[i] === "\\" && i + 1 < label.length) {
      const digits = label.slice(i + 1, i + 4);
      if (/^[0-9]{3}$/.test(digits)) {
        code = Number(digits);
        i += 3;
      } else {
        code = label.charCodeAt(i + 1);
        i += 1;
      }
    }
    octets.push(code >= 0x41 && code <= 0x5a ? code + 0x20 : code);
  }
  return octets;
}

/** A sort key: the name's labels, root first, as folded octets. */
export function canonicalNameKey(name: string): number[][] {
  return splitLabels(name).reverse().map(labelOctets);
}

function compareLabels(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** Compares two keys from {@linkcode canonicalNameKey}; negative when `a` sorts first. */
export function compareNameKeys(a: number[][], b: number[][]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const order = compareLabels(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Compares two names in canonical DNS order. */
export function compareNames(a: string, b: string): number {
  return compareNameKeys(canonicalNameKey(a), canonicalNameKey(b));
}
