/**
 * Presentation-format parsers for types whose data ends in hex: TLSA, SSHFP
 * and the RFC 3597 generic form `\# <length> <hex>` used by `TYPEnnn`.
 */
import type { SshfpRdata, TlsaRdata, UnknownRdata } from "./rdata.ts";
import {
  parseHex,
  parseUint,
  RdataSyntaxError,
  tokenize,
} from "./rdata_text_fields.ts";

const U8 = 255;

/** Digest sizes fixed by the matching type / fingerprint type registries. */
const TLSA_DIGEST_OCTETS: Record<number, [string, number]> = {
  1: ["SHA-256", 32],
  2: ["SHA-512", 64],
};
const SSHFP_DIGEST_OCTETS: Record<number, [string, number]> = {
  1: ["SHA-1", 20],
  2: ["SHA-256", 32],
};

function leadingNumbersAndHex(
  type: string,
  text: string,
  names: string[],
  hexName: string,
): { numbers: number[]; hex: Uint8Array } {
  const tokens = tokenize(type, text);
  if (tokens.length < names.length + 1) {
    throw new RdataSyntaxError(
      `${type} needs ${names.length + 1} fields (${
        names.join(" ")
      } ${hexName}), got ${tokens.length}`,
    );
  }
  const numbers = names.map((name, i) =>
    parseUint(tokens[i]!.text, `${type} ${name}`, U8)
  );
  const hexTokens = tokens.slice(names.length);
  const quoted = hexTokens.find((t) => t.quoted);
  if (quoted) {
    throw new RdataSyntaxError(`${type} ${hexName} must not be quoted`);
  }
  const hex = parseHex(
    hexTokens.map((t) => t.text).join(""),
    `${type} ${hexName}`,
  );
  if (hex.length === 0) {
    throw new RdataSyntaxError(`${type} ${hexName} is empty`);
  }
  return { numbers, hex };
}

function checkDigestLength(
  what: string,
  typeNumber: number,
  sizes: Record<number, [string, number]>,
  data: Uint8Array,
): void {
  const size = sizes[typeNumber];
  if (size === undefined || data.length === size[1]) return;
  throw new RdataSyntaxError(
    `${what} is ${data.length} octets but ${
      size[0]
    } (type ${typeNumber}) needs ${size[1]}`,
  );
}

/** `3 1 1 <sha-256 hex>` */
export function parseTlsa(text: string): TlsaRdata {
  const { numbers, hex } = leadingNumbersAndHex(
    "TLSA",
    text,
    ["usage", "selector", "matching type"],
    "data",
  );
  const [usage, selector, matchingType] = numbers as [number, number, number];
  checkDigestLength("TLSA data", matchingType, TLSA_DIGEST_OCTETS, hex);
  return { type: "TLSA", usage, selector, matchingType, data: hex };
}

/** `4 2 <sha-256 hex>` */
export function parseSshfp(text: string): SshfpRdata {
  const { numbers, hex } = leadingNumbersAndHex(
    "SSHFP",
    text,
    ["algorithm", "fingerprint type"],
    "fingerprint",
  );
  const [algorithm, fingerprintType] = numbers as [number, number];
  checkDigestLength(
    "SSHFP fingerprint",
    fingerprintType,
    SSHFP_DIGEST_OCTETS,
    hex,
  );
  return { type: "SSHFP", algorithm, fingerprintType, fingerprint: hex };
}

/** `\# 4 c0000201`, or `\# 0` for empty data (RFC 3597 §5). */
export function parseGeneric(
  typeName: string,
  code: number,
  text: string,
): UnknownRdata {
  const tokens = tokenize(typeName, text);
  const marker = tokens[0];
  if (marker === undefined || marker.quoted || marker.text !== "\\#") {
    throw new RdataSyntaxError(
      `${typeName} data must be in RFC 3597 generic form "\\# <length> <hex>"`,
    );
  }
  const lengthToken = tokens[1];
  if (lengthToken === undefined) {
    throw new RdataSyntaxError(`${typeName} generic data has no length`);
  }
  const length = parseUint(
    lengthToken.text,
    `${typeName} generic data length`,
    65535,
  );
  const hexTokens = tokens.slice(2);
  if (hexTokens.some((t) => t.quoted)) {
    throw new RdataSyntaxError(`${typeName} generic data must not be quoted`);
  }
  const data = parseHex(
    hexTokens.map((t) => t.text).join(""),
    `${typeName} generic data`,
  );
  if (data.length !== length) {
    throw new RdataSyntaxError(
      `${typeName} generic data is ${data.length} octets but the length field says ${length}`,
    );
  }
  return { type: "unknown", code, data };
}
