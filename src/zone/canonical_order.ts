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
    octets.push(foldCase(code));
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

/**
 * Compares two names in canonical DNS order. Names without escapes (nearly
 * all) are compared in place, label by label from the right, with no
 * allocation: diffing a zone (zone_diff.ts) compares a name per RRset.
 */
export function compareNames(a: string, b: string): number {
  if (a.includes("\\") || b.includes("\\")) {
    return compareNameKeys(canonicalNameKey(a), canonicalNameKey(b));
  }
  // [start, end) of the current label; done once the leftmost was compared.
  let aEnd = a.endsWith(".") ? a.length - 1 : a.length;
  let bEnd = b.endsWith(".") ? b.length - 1 : b.length;
  let aDone = aEnd <= 0;
  let bDone = bEnd <= 0;
  for (;;) {
    if (aDone || bDone) return (aDone ? 0 : 1) - (bDone ? 0 : 1);
    // At 0 the label left is empty (a name that starts with a dot):
    // lastIndexOf would read -1 as 0 and find that dot again, for ever.
    const aStart = aEnd <= 0 ? 0 : a.lastIndexOf(".", aEnd - 1) + 1;
    const bStart = bEnd <= 0 ? 0 : b.lastIndexOf(".", bEnd - 1) + 1;
    const aLength = aEnd - aStart;
    const bLength = bEnd - bStart;
    const n = Math.min(aLength, bLength);
    for (let i = 0; i < n; i++) {
      const x = foldCase(a.charCodeAt(aStart + i));
      const y = foldCase(b.charCodeAt(bStart + i));
      if (x !== y) return x - y;
    }
    if (aLength !== bLength) return aLength - bLength;
    aDone = aStart === 0;
    bDone = bStart === 0;
    aEnd = aStart - 1;
    bEnd = bStart - 1;
  }
}

function foldCase(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}
