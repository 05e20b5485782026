/**
 * Domain names in presentation format (RFC 1035 §5.1): validation, splitting
 * into labels, and comparison. Names keep their escapes (`\.`, `\DDD`, `\X`)
 * as text; octet counts and comparisons work on the decoded octets.
 */

/** Longest label, in octets (RFC 1035 §2.3.4). */
export const MAX_LABEL_OCTETS = 63;
/** Longest name in wire form, length octets and root included (RFC 1035 §2.3.4). */
export const MAX_NAME_OCTETS = 255;

/** Options for {@linkcode checkDomainName}. */
export interface DomainNameOptions {
  /**
   * Require the name to be fully qualified (end with an unescaped dot).
   * @default false
   */
  requireTrailingDot?: boolean;
  /**
   * Accept `*` as the entire leftmost label (RFC 4592 wildcard owner names).
   * @default false
   */
  allowWildcard?: boolean;
}

/** One label as written (escapes intact) and as decoded octets. */
interface ScannedLabel {
  text: string;
  octets: number[];
  /** True when the label holds an unescaped `*`. */
  hasBareStar: boolean;
}

interface ScannedName {
  labels: ScannedLabel[];
  /** True when the name ends with an unescaped dot. */
  absolute: boolean;
}

/**
 * Decodes a name into labels. Returns an error message instead of throwing so
 * that the validator and the lenient helpers share one scanner.
 */
function scanName(name: string): ScannedName | string {
  if (name === "") return "name is empty";
  if (name === ".") return { labels: [], absolute: true };
  const labels: ScannedLabel[] = [];
  let start = 0;
  let octets: number[] = [];
  let hasBareStar = false;
  let absolute = false;
  let i = 0;
  while (i < name.length) {
    const ch = name[i]!;
    const code = name.charCodeAt(i);
    if (ch === "\\") {
      const escaped = decodeEscape(name, i);
      if (typeof escaped === "string") return escaped;
      octets.push(escaped.octet);
      i = escaped.next;
      continue;
    }
    if (ch === ".") {
      if (octets.length === 0) {
        return `name "${shorten(name)}" has an empty label`;
      }
      labels.push({ text: name.slice(start, i), octets, hasBareStar });
      octets = [];
      hasBareStar = false;
      start = i + 1;
      i++;
      if (i === name.length) absolute = true;
      continue;
    }
    if (code <= 0x20 || code === 0x7f) {
      return `name "${
        shorten(name)
      }" contains whitespace or a control character; escape it as \\DDD`;
    }
    if (code > 0x7e) {
      return `name "${
        shorten(name)
      }" contains a non-ASCII character; use its punycode (xn--) form`;
    }
    if (ch === "*") hasBareStar = true;
    octets.push(code);
    i++;
  }
  if (!absolute) labels.push({ text: name.slice(start), octets, hasBareStar });
  return { labels, absolute };
}

/** Decodes the escape starting at `at` (which holds a backslash). */
function decodeEscape(
  text: string,
  at: number,
): { octet: number; next: number } | string {
  const first = text[at + 1];
  if (first === undefined) {
    return `name "${shorten(text)}" ends with a lone backslash`;
  }
  if (first >= "0" && first <= "9") {
    const digits = text.slice(at + 1, at + 4);
    if (!/^[0-9]{3}$/.test(digits)) {
      return `name "${
        shorten(text)
      }" has an escape "\\${digits}" that is not \\DDD (three decimal digits)`;
    }
    const octet = Number(digits);
    if (octet > 255) {
      return `name "${shorten(text)}" has an escape "\\${digits}" above \\255`;
    }
    return { octet, next: at + 4 };
  }
  const code = text.charCodeAt(at + 1);
  if (code > 0x7e) {
    return `name "${
      shorten(text)
    }" contains a non-ASCII character; use its punycode (xn--) form`;
  }
  return { octet: code, next: at + 2 };
}

/** Cuts long text for error messages. */
function shorten(text: string, max = 40): string {
  return text.length <= max ? text : text.slice(0, max) + "…";
}

/**
 * Checks a domain name in presentation format.
 *
 * Labels are 1..63 octets, the whole name at most 255 octets in wire form,
 * escapes count as the octet they stand for, `.` is the root. Any printable
 * ASCII is allowed in a label (hostname rules are stricter; DNS is not).
 *
 * @returns null when the name is valid, else a short message saying why not
 */
export function checkDomainName(
  name: string,
  opts: DomainNameOptions = {},
): string | null {
  const scanned = scanName(name);
  if (typeof scanned === "string") return scanned;
  if (opts.requireTrailingDot && !scanned.absolute) {
    return `name "${
      shorten(name)
    }" is not fully qualified (it must end with ".")`;
  }
  let wireOctets = 1; // the root label's length octet
  for (const [index, label] of scanned.labels.entries()) {
    if (label.octets.length > MAX_LABEL_OCTETS) {
      return `label "${
        shorten(label.text, 20)
      }" is longer than ${MAX_LABEL_OCTETS} octets`;
    }
    wireOctets += 1 + label.octets.length;
    if (!label.hasBareStar) continue;
    if (label.text !== "*") {
      return `label "${
        shorten(label.text, 20)
      }" mixes "*" with other characters; escape it as \\*`;
    }
    if (index > 0) return `wildcard "*" is only allowed as the leftmost label`;
    if (!opts.allowWildcard) return `wildcard "*" is not allowed here`;
  }
  if (wireOctets > MAX_NAME_OCTETS) {
    return `name "${
      shorten(name)
    }" is ${wireOctets} octets in wire form; the limit is ${MAX_NAME_OCTETS}`;
  }
  return null;
}

/**
 * `name` written the one way `readName` (wire/read_name.ts) writes a name
 * read off the wire, case kept: escapes only where they are needed (`\.`
 * and `\\` in a label, `\DDD` outside printable ASCII, `\*` for a star
 * that is not the whole leftmost label), a trailing dot. So `\*.a.`,
 * `\042.a` and `*.a.` all become `*.a.`, and `\065` becomes `A`: names
 * that are equal on the wire compare equal as strings (up to ASCII case).
 * An invalid name comes back unchanged.
 */
export function canonicalName(name: string): string {
  const scanned = scanName(name);
  if (typeof scanned === "string") return name;
  if (scanned.labels.length === 0) return ".";
  let out = "";
  scanned.labels.forEach((label, index) => {
    const wildcard = index === 0 && label.octets.length === 1 &&
      label.octets[0] === STAR;
    for (const octet of label.octets) {
      if (
        octet === DOT || octet === BACKSLASH || (octet === STAR && !wildcard)
      ) {
        out += "\\" + String.fromCharCode(octet);
      } else if (octet > 0x20 && octet < 0x7f) {
        out += String.fromCharCode(octet);
      } else {
        out += "\\" + String(octet).padStart(3, "0");
      }
    }
    out += ".";
  });
  return out;
}

const DOT = 0x2e;
const BACKSLASH = 0x5c;
const STAR = 0x2a;

/** True when the name ends with an unescaped dot (`a\.` does not). */
function endsWithUnescapedDot(name: string): boolean {
  if (!name.endsWith(".")) return false;
  let backslashes = 0;
  for (let i = name.length - 2; i >= 0 && name[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** Adds the trailing dot when it is missing; `""` becomes the root `.`. */
export function toFqdn(name: string): string {
  if (name === "") return ".";
  return endsWithUnescapedDot(name) ? name : name + ".";
}

/**
 * Lowercases ASCII letters and adds the trailing dot. Escapes stay as written
 * (`\065` is not rewritten to `a`); compare with {@linkcode isSubdomainOf} or
 * decoded octets when escapes may differ.
 */
export function normalizeName(name: string): string {
  return toFqdn(name.replace(/[A-Z]/g, (c) => c.toLowerCase()));
}

/**
 * Splits a name into its labels as written (escapes intact), without the
 * root: `a\.b.example.` gives `["a\.b", "example"]`, `.` gives `[]`.
 * Does not validate; an empty label (`a..b`) comes back as `""`.
 */
export function splitLabels(name: string): string[] {
  if (name === "" || name === ".") return [];
  const labels: string[] = [];
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch === "\\") {
      i++; // the escaped character is never a separator
      continue;
    }
    if (ch === ".") {
      labels.push(name.slice(start, i));
      start = i + 1;
    }
  }
  if (start < name.length) labels.push(name.slice(start));
  return labels;
}

/**
 * Octets `name` takes on the wire (length octets and the root included),
 * whatever its labels hold (`*` anywhere too); undefined when it does not
 * scan (a bad escape).
 */
export function nameWireOctets(name: string): number | undefined {
  const scanned = scanName(name);
  if (typeof scanned === "string") return undefined;
  let octets = 1;
  for (const label of scanned.labels) octets += 1 + label.octets.length;
  return octets;
}

/**
 * Decodes a name into the octets of each label (root excluded), ready for
 * wire encoding.
 *
 * @throws {TypeError} when the name is not valid (see {@linkcode checkDomainName})
 */
export function labelOctets(
  name: string,
  opts: DomainNameOptions = {},
): Uint8Array[] {
  const problem = checkDomainName(name, opts);
  if (problem !== null) throw new TypeError(`Cannot decode name: ${problem}`);
  const scanned = scanName(name) as ScannedName;
  return scanned.labels.map((label) => Uint8Array.from(label.octets));
}

function foldCase(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet + 0x20 : octet;
}

function sameLabel(a: number[], b: number[]): boolean {
  return a.length === b.length &&
    a.every((octet, i) => foldCase(octet) === foldCase(b[i]!));
}

/**
 * True when `name` is `zone` or below it. Case-insensitive on ASCII letters,
 * escape-aware, and indifferent to trailing dots; every name is under `.`.
 * Invalid names are under nothing.
 */
export function isSubdomainOf(name: string, zone: string): boolean {
  const n = scanName(name);
  const z = scanName(zone);
  if (typeof n === "string" || typeof z === "string") return false;
  const offset = n.labels.length - z.labels.length;
  if (offset < 0) return false;
  return z.labels.every((label, i) =>
    sameLabel(n.labels[offset + i]!.octets, label.octets)
  );
}
