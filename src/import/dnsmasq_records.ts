/**
 * dnsmasq's local-record options as records: `host-record=`, `cname=`,
 * `mx-host=`, `srv-host=`, `txt-record=`, `ptr-record=`, `naptr-record=`,
 * `caa-record=` (syntax in dnsmasq(8)) and hosts-file lines (`addn-hosts=`).
 * Each gives records in presentation format, or the reason it cannot; the
 * zone they go in is decided later (dnsmasq_zones.ts).
 */
import ipaddr from "ipaddr.js";
import { checkDomainName } from "../dns/name.ts";
import { checkRdata } from "../dns/rdata_text.ts";

/** One record: owner (lowercase, no trailing dot), type, rdata text. */
export interface RecordEntry {
  name: string;
  type: string;
  target: string;
  ttl?: number;
}

/** What names need from the rest of the configuration. */
export interface NameContext {
  /** `domain=`: added to names without a dot. */
  domain?: string;
  /** `mx-target=`: the MX host when `mx-host=` names none. */
  mxTarget?: string;
}

/** Records, or why the line gives none. */
export type RecordsOf = RecordEntry[] | string;

/** Options this file reads. */
export const RECORD_OPTIONS = [
  "host-record",
  "cname",
  "mx-host",
  "srv-host",
  "txt-record",
  "ptr-record",
  "naptr-record",
  "caa-record",
] as const;

class LineProblem extends Error {}

function fail(reason: string): never {
  throw new LineProblem(reason);
}

/**
 * An owner or target name as an absolute-looking lowercase name without the
 * trailing dot; a name without a dot gets `domain=` (dnsmasq answers the
 * bare name too, which a zone cannot hold).
 */
export function ownerName(text: string, ctx: NameContext): string {
  let name = text.trim().toLowerCase().replace(/\.$/, "");
  if (name === "") fail("names no host");
  if (!name.includes(".")) {
    if (ctx.domain === undefined) {
      fail(
        `"${name}" has no domain and there is no domain= to add; a zone cannot hold a bare name`,
      );
    }
    name = `${name}.${ctx.domain}`;
  }
  const problem = checkDomainName(name);
  if (problem !== null) fail(`"${text}" is not a domain name: ${problem}`);
  return name;
}

/** A target name: kept as written (absolute), "." stays the root. */
function targetName(text: string): string {
  const name = text.trim().toLowerCase();
  if (name === "" || name === ".") return ".";
  const problem = checkDomainName(name);
  if (problem !== null) fail(`"${text}" is not a domain name: ${problem}`);
  return name.endsWith(".") ? name : `${name}.`;
}

function ttlOf(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 2147483647) {
    fail(`TTL "${text}" is not a number of seconds`);
  }
  return Number(text);
}

function integer(text: string, what: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) > max) {
    fail(`${what} "${text}" is not a number from 0 to ${max}`);
  }
  return Number(text);
}

/** A TXT or CAA character-string in presentation format. */
export function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function entry(
  name: string,
  type: string,
  target: string,
  ttl?: number,
): RecordEntry {
  const problem = checkRdata(type, target);
  if (problem !== null) fail(`${type} ${target}: ${problem}`);
  return ttl === undefined
    ? { name, type, target }
    : { name, type, target, ttl };
}

function addressType(text: string): "A" | "AAAA" | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  return ipaddr.parse(text).kind() === "ipv4" ? "A" : "AAAA";
}

/** `host-record=<name>[,<name>…],[<IPv4>],[<IPv6>][,<TTL>]`. */
function hostRecord(fields: string[], ctx: NameContext): RecordEntry[] {
  const parts = [...fields];
  let ttl: number | undefined;
  if (parts.length > 1 && /^\d+$/.test(parts.at(-1)!)) {
    ttl = ttlOf(parts.pop()!);
  }
  const names: string[] = [];
  const addresses: { type: "A" | "AAAA"; address: string }[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const type = addressType(part);
    if (type !== undefined) addresses.push({ type, address: part });
    else names.push(ownerName(part, ctx));
  }
  if (names.length === 0) fail("names no host");
  if (addresses.length === 0) fail("gives no IPv4 or IPv6 address");
  return names.flatMap((name) =>
    addresses.map((a) => entry(name, a.type, a.address, ttl))
  );
}

/** `cname=<cname>,[<cname>,]<target>[,<TTL>]`. */
function cname(fields: string[], ctx: NameContext): RecordEntry[] {
  const parts = [...fields];
  let ttl: number | undefined;
  if (parts.length > 2 && /^\d+$/.test(parts.at(-1)!)) {
    ttl = ttlOf(parts.pop()!);
  }
  if (parts.length < 2) fail("needs an alias and a target");
  const target = targetName(ownerName(parts.pop()!, ctx));
  return parts.map((alias) =>
    entry(ownerName(alias, ctx), "CNAME", target, ttl)
  );
}

/** `mx-host=<mx name>[[,<hostname>],<preference>]`. */
function mxHost(fields: string[], ctx: NameContext): RecordEntry[] {
  const [name = "", second, third] = fields;
  let host: string | undefined;
  let preference = 1;
  if (third !== undefined) {
    host = second;
    preference = integer(third, "preference", 65535);
  } else if (second !== undefined && /^\d+$/.test(second)) {
    preference = integer(second, "preference", 65535);
  } else {
    host = second;
  }
  host = host === undefined || host === "" ? ctx.mxTarget : host;
  if (host === undefined) {
    fail(
      "names no mail host and there is no mx-target=; dnsmasq means the host it runs on, which the import cannot know",
    );
  }
  const target = targetName(ownerName(host, ctx));
  return [entry(ownerName(name, ctx), "MX", `${preference} ${target}`)];
}

/** `srv-host=<_service>.<_prot>[.<domain>],[<target>[,<port>[,<priority>[,<weight>]]]]`. */
function srvHost(fields: string[], ctx: NameContext): RecordEntry[] {
  const [rawName = "", target = "", port = "1", priority = "0", weight = "0"] =
    fields;
  // `_service._prot` alone takes domain= (dnsmasq(8)); ownerName adds it
  // only to dotless names, so add it here.
  const labels = rawName.replace(/\.$/, "").split(".");
  const name = labels.length === 2 && ctx.domain !== undefined
    ? `${rawName.replace(/\.$/, "")}.${ctx.domain}`
    : labels.length === 2
    ? fail(`"${rawName}" has no domain and there is no domain= to add`)
    : rawName;
  const rdata = [
    integer(priority, "priority", 65535),
    integer(weight, "weight", 65535),
    integer(port === "" ? "1" : port, "port", 65535),
    target === "" ? "." : targetName(ownerName(target, ctx)),
  ].join(" ");
  return [entry(ownerName(name, ctx), "SRV", rdata)];
}

/** `txt-record=<name>[[,<text>],<text>]`: one record of several strings. */
function txtRecord(fields: string[], ctx: NameContext): RecordEntry[] {
  const [name = "", ...texts] = fields;
  const strings = (texts.length === 0 ? [""] : texts).flatMap((t) => {
    // A string longer than 255 octets is cut into 255-octet chunks (dnsmasq(8)).
    const chunks: string[] = [];
    for (let i = 0; i < t.length; i += 255) chunks.push(t.slice(i, i + 255));
    return chunks.length === 0 ? [""] : chunks;
  });
  return [entry(ownerName(name, ctx), "TXT", strings.map(quoted).join(" "))];
}

/** `ptr-record=<name>[,<target>]`. */
function ptrRecord(fields: string[], ctx: NameContext): RecordEntry[] {
  const [name = "", target] = fields;
  if (target === undefined || target === "") fail("names no PTR target");
  // DNS-SD instance names hold spaces; a target is any domain name.
  const problem = checkDomainName(target);
  if (problem !== null) fail(`"${target}" is not a domain name: ${problem}`);
  const absolute = target.endsWith(".") ? target : `${target}.`;
  const escaped = absolute.replace(/ /g, "\\032");
  return [entry(ownerName(name, ctx), "PTR", escaped)];
}

/** `naptr-record=<name>,<order>,<preference>,<flags>,<service>,<regexp>[,<replacement>]`. */
function naptrRecord(fields: string[], ctx: NameContext): RecordEntry[] {
  if (fields.length < 6) {
    fail("needs name, order, preference, flags, service and regexp");
  }
  const [
    name = "",
    order = "",
    preference = "",
    flags = "",
    service = "",
    regexp = "",
    replacement = "",
  ] = fields;
  const rdata = [
    integer(order, "order", 65535),
    integer(preference, "preference", 65535),
    quoted(flags),
    quoted(service),
    quoted(regexp),
    replacement === "" ? "." : targetName(replacement),
  ].join(" ");
  return [entry(ownerName(name, ctx), "NAPTR", rdata)];
}

/** `caa-record=<name>,<flags>,<tag>,<value>`. */
function caaRecord(fields: string[], ctx: NameContext): RecordEntry[] {
  if (fields.length < 4) fail("needs name, flags, tag and value");
  const [name = "", flags = "", tag = "", ...value] = fields;
  const rdata = `${integer(flags, "flags", 255)} ${tag} ${
    quoted(value.join(","))
  }`;
  return [entry(ownerName(name, ctx), "CAA", rdata)];
}

const PARSERS: Record<
  (typeof RECORD_OPTIONS)[number],
  (fields: string[], ctx: NameContext) => RecordEntry[]
> = {
  "host-record": hostRecord,
  "cname": cname,
  "mx-host": mxHost,
  "srv-host": srvHost,
  "txt-record": txtRecord,
  "ptr-record": ptrRecord,
  "naptr-record": naptrRecord,
  "caa-record": caaRecord,
};

/** True for the options {@linkcode recordsOf} reads. */
export function isRecordOption(
  option: string,
): option is (typeof RECORD_OPTIONS)[number] {
  return (RECORD_OPTIONS as readonly string[]).includes(option);
}

/** The records of one option line, or why it gives none. */
export function recordsOf(
  option: (typeof RECORD_OPTIONS)[number],
  fields: string[],
  ctx: NameContext,
): RecordsOf {
  try {
    return PARSERS[option](fields, ctx);
  } catch (err) {
    if (err instanceof LineProblem) return err.message;
    throw err;
  }
}

/**
 * One hosts-file line (`address name [alias…]`, `#` comments) as A/AAAA
 * records; [] for a blank or comment line. Names without a dot take
 * `domain=` (dnsmasq does so with `expand-hosts`; see the report note).
 */
export function hostsLine(line: string, ctx: NameContext): RecordsOf {
  const text = line.replace(/#.*/, "").trim();
  if (text === "") return [];
  const [address = "", ...names] = text.split(/\s+/);
  try {
    const type = addressType(address) ??
      fail(`"${address}" is not an IP address`);
    if (names.length === 0) fail("names no host");
    return names.map((n) => entry(ownerName(n, ctx), type, address));
  } catch (err) {
    if (err instanceof LineProblem) return err.message;
    throw err;
  }
}
