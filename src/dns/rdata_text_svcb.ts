/**
 * SVCB and HTTPS in presentation format (RFC 9460 §2.1, Appendix A):
 * `priority target key[=value]…`, e.g. `1 . alpn=h2,h3 port=8443`.
 */
import { SVC_PARAM_KEY } from "./wire/svcb_wire.ts";
import type { SvcbRdata, SvcParam } from "./rdata.ts";
import { paramFromWire } from "./rdata_text_svcb_wire.ts";
import {
  decodeCharString,
  parseBase64,
  parseIpv4Text,
  parseIpv6Text,
  parseRdataName,
  parseUint,
  RdataSyntaxError,
  tokenize,
} from "./rdata_text_fields.ts";

/** SvcParamKey names and codes (RFC 9460 §14.3.2), shared with the wire codec. */
const KEY_CODES: Record<string, number> = SVC_PARAM_KEY;

/** 65535 is the reserved "invalid key" (RFC 9460 §14.3.2). */
const MAX_KEY_CODE = 65534;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

interface RawParam {
  key: string;
  /** Raw value text (escapes intact), undefined when written without `=`. */
  value: string | undefined;
}

/** Parses SVCB or HTTPS data. */
export function parseSvcb(type: "SVCB" | "HTTPS", text: string): SvcbRdata {
  const { head, rest } = splitHead(text);
  const tokens = tokenize(type, head);
  if (tokens.length < 2) {
    throw new RdataSyntaxError(
      `${type} needs at least 2 fields (priority target [params…]), got ${tokens.length}`,
    );
  }
  const priority = parseUint(tokens[0]!.text, `${type} priority`, 65535);
  const target = parseRdataName(tokens[1]!, `${type} target`);
  const rawParams = scanParams(type, rest);
  if (priority === 0 && rawParams.length > 0) {
    throw new RdataSyntaxError(
      `${type} AliasMode (priority 0) must not have params`,
    );
  }
  const params: SvcParam[] = [];
  const seen = new Set<number>();
  for (const raw of rawParams) {
    const code = keyCode(type, raw.key);
    if (seen.has(code)) {
      throw new RdataSyntaxError(
        `${type} param "${raw.key}" appears more than once`,
      );
    }
    seen.add(code);
    params.push(parseParam(type, raw));
  }
  checkConsistency(type, params, seen);
  return { type, priority, target, params };
}

/** Cuts the text after the second field, where the params begin. */
function splitHead(text: string): { head: string; rest: string } {
  const match = text.match(/^\s*(?:\\.|\S)+\s+(?:\\.|\S)+/s);
  if (match === null) return { head: text, rest: "" };
  return { head: match[0], rest: text.slice(match[0].length) };
}

/** Splits `key`, `key=value` and `key="quoted value"` fields. */
function scanParams(type: string, text: string): RawParam[] {
  const params: RawParam[] = [];
  const param =
    /([^\s=]+)(?:=(?:"((?:\\.|[^"\\])*)"|((?:\\.|[^\s\\"])(?:\\.|[^\s\\])*)?))?(?:\s+|$)/y;
  let at = text.search(/\S|$/);
  while (at < text.length) {
    param.lastIndex = at;
    const match = param.exec(text);
    if (match === null) {
      throw new RdataSyntaxError(
        `${type} params "${text.slice(at).trim()}" cannot be parsed`,
      );
    }
    const [whole, key, quoted, unquoted] = match;
    const value = quoted ?? unquoted ?? (whole.includes("=") ? "" : undefined);
    params.push({ key: key!, value });
    at = param.lastIndex;
  }
  return params;
}

function keyCode(type: string, key: string): number {
  const known = KEY_CODES[key];
  if (known !== undefined) return known;
  const generic = key.match(/^key(0|[1-9][0-9]{0,4})$/);
  if (generic && Number(generic[1]) <= MAX_KEY_CODE) return Number(generic[1]);
  throw new RdataSyntaxError(
    `${type} param key "${key}" is unknown (use keyNNNNN for others)`,
  );
}

function parseParam(type: string, raw: RawParam): SvcParam {
  const what = `${type} ${raw.key}`;
  // keyNNNNN (RFC 9460 §2.1) carries wire octets, whatever the key.
  if (/^key[0-9]+$/.test(raw.key)) {
    const value = raw.value === undefined
      ? new Uint8Array()
      : decodeCharString(raw.value, what);
    return paramFromWire(what, keyCode(type, raw.key), value);
  }
  if (raw.key === "no-default-alpn") {
    if (raw.value !== undefined) {
      throw new RdataSyntaxError(`${what} takes no value`);
    }
    return { key: "no-default-alpn" };
  }
  if (raw.value === undefined || raw.value === "") {
    if (raw.key in KEY_CODES) {
      throw new RdataSyntaxError(`${what} needs a value`);
    }
    return {
      key: "generic",
      code: keyCode(type, raw.key),
      value: new Uint8Array(),
    };
  }
  const value = decodeCharString(raw.value, what);
  const ascii = new TextDecoder().decode(value);
  switch (raw.key) {
    case "mandatory":
      return {
        key: "mandatory",
        keys: ascii.split(",").map((k) => mandatoryKey(type, k)),
      };
    case "alpn":
      return { key: "alpn", ids: alpnIds(what, value) };
    case "port":
      return { key: "port", port: parseUint(ascii, what, 65535) };
    case "ipv4hint":
      return {
        key: "ipv4hint",
        addresses: hints(what, ascii, parseIpv4Text, "IPv4"),
      };
    case "ipv6hint":
      return {
        key: "ipv6hint",
        addresses: hints(what, ascii, parseIpv6Text, "IPv6"),
      };
    case "ech":
      return { key: "ech", config: parseBase64(ascii, what) };
    case "dohpath":
      return { key: "dohpath", template: dohPath(what, value) };
    default:
      return { key: "generic", code: keyCode(type, raw.key), value };
  }
}

function keyName(code: number): string {
  return Object.keys(KEY_CODES).find((name) => KEY_CODES[name] === code) ??
    `key${code}`;
}

function mandatoryKey(type: string, key: string): number {
  const code = keyCode(type, key);
  if (code === 0) {
    throw new RdataSyntaxError(`${type} mandatory must not list "mandatory"`);
  }
  return code;
}

/** Splits a value-list on commas; a backslash makes the next octet literal. */
function splitValueList(what: string, value: Uint8Array): Uint8Array[] {
  const items: number[][] = [[]];
  for (let i = 0; i < value.length; i++) {
    const octet = value[i]!;
    if (octet === COMMA) {
      items.push([]);
      continue;
    }
    if (octet === BACKSLASH) {
      i++;
      if (i === value.length) {
        throw new RdataSyntaxError(`${what} ends with a lone backslash`);
      }
    }
    items.at(-1)!.push(value[i]!);
  }
  if (items.some((item) => item.length === 0)) {
    throw new RdataSyntaxError(
      `${what} has an empty item in its comma-separated list`,
    );
  }
  return items.map((item) => Uint8Array.from(item));
}

function alpnIds(what: string, value: Uint8Array): Uint8Array[] {
  const ids = splitValueList(what, value);
  const long = ids.find((id) => id.length > 255);
  if (long) {
    throw new RdataSyntaxError(
      `${what} has an ALPN id of ${long.length} octets; the limit is 255`,
    );
  }
  return ids;
}

function hints(
  what: string,
  text: string,
  parse: (address: string) => string | null,
  family: string,
): string[] {
  return text.split(",").map((item) => {
    const address = parse(item);
    if (address === null) {
      throw new RdataSyntaxError(
        `${what} "${item}" is not an ${family} address`,
      );
    }
    return address;
  });
}

/** RFC 9461 §5: a relative URI template with a "dns" variable. */
function dohPath(what: string, value: Uint8Array): string {
  let template: string;
  try {
    template = new TextDecoder("utf-8", { fatal: true }).decode(value);
  } catch (cause) {
    throw new RdataSyntaxError(`${what} is not valid UTF-8`, { cause });
  }
  if (
    !template.startsWith("/") ||
    !/\{[?&]?(?:[^}]*,)?dns(?:,[^}]*)?\}/.test(template)
  ) {
    throw new RdataSyntaxError(
      `${what} "${template}" must be a path template with a {?dns} variable`,
    );
  }
  return template;
}

/** RFC 9460 §8 and §7.1.1: mandatory keys present, no-default-alpn needs alpn. */
function checkConsistency(
  type: string,
  params: SvcParam[],
  present: Set<number>,
): void {
  for (const param of params) {
    if (param.key !== "mandatory") continue;
    const listed = new Set<number>();
    for (const code of param.keys) {
      if (listed.has(code)) {
        throw new RdataSyntaxError(
          `${type} mandatory lists "${keyName(code)}" twice`,
        );
      }
      listed.add(code);
      if (!present.has(code)) {
        throw new RdataSyntaxError(
          `${type} mandatory lists "${keyName(code)}", which is not present`,
        );
      }
    }
  }
  if (
    present.has(KEY_CODES["no-default-alpn"]!) && !present.has(KEY_CODES.alpn!)
  ) {
    throw new RdataSyntaxError(`${type} no-default-alpn needs alpn`);
  }
}
