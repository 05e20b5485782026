/**
 * Building blocks for the settings schema: typed fields that carry their
 * metadata, so the schema itself is the settings table
 * (docs/design.md#settings).
 */
import { z } from "zod";
import { isIpAddress } from "../dns/ip_text.ts";
import ipaddr from "ipaddr.js";
import { durationMsSchema } from "./duration.ts";
import { sizeBytesSchema } from "./size.ts";

/** What every settings key says about itself, stored with `.meta()`. */
export type SettingMeta = {
  /** One sentence for the docs, the UI and `kudurru config`. */
  help?: string;
  /** A change takes effect only after a restart. */
  restartRequired?: boolean;
  /** Always read-only in the UI and API, as if an environment variable set it. */
  envLocked?: boolean;
  /** A secret: masked in every output. */
  writeOnly?: boolean;
  /** Code-bearing or privileged: never settable through the API. */
  hostOnly?: boolean;
  /**
   * A display type more precise than the zod type ("duration", "size", …).
   * "duration" and "size" keys are text in the file and numbers (ms, bytes)
   * in Config; printed configs show them as text again (debug.ts).
   */
  kind?: string;
  /** Shown instead of the default when the default depends on the machine. */
  defaultText?: string;
};

/** Reads the metadata attached to one schema (not its wrappers). */
export function metaOf(schema: z.ZodType): SettingMeta {
  return (z.globalRegistry.get(schema) ?? {}) as SettingMeta;
}

const HOSTNAME =
  /^(?=.{1,253}$)[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,62})(?:\.[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,62}))*\.?$/;

/** True for "host:port" with an IPv4 address, a hostname or a bracketed IPv6 address. */
export function isHostPort(text: string): boolean {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!m || Number(m[3]) > 65535) return false;
  if (m[1] !== undefined) return ipaddr.IPv6.isValid(m[1]);
  return ipaddr.IPv4.isValidFourPartDecimal(m[2]!) || HOSTNAME.test(m[2]!);
}

/** True for an address or a CIDR prefix ("10.0.0.0/8", "::1/128", "192.0.2.1"). */
export function isAddressOrPrefix(text: string): boolean {
  return ipaddr.isValidCIDR(text) || ipaddr.isValid(text);
}

/**
 * A duration setting: written as text ("30s", "10m"; `def` too, as the docs
 * show it), a number of MILLISECONDS in Config. `range` is in ms.
 */
export function duration(
  def: string,
  meta: SettingMeta,
  range: { min?: number; max?: number } = {},
) {
  // prefault: the default is text and goes through the parse like input.
  return durationMsSchema(range).prefault(def).meta({
    kind: "duration",
    ...meta,
  });
}

/**
 * A size setting: written as text ("64MiB", "10GiB"; `def` too), a number
 * of BYTES in Config.
 */
export function size(def: string, meta: SettingMeta) {
  return sizeBytesSchema().prefault(def).meta({ kind: "size", ...meta });
}

export function text(def: string, meta: SettingMeta) {
  return z.string().default(def).meta(meta);
}

export function flag(def: boolean, meta: SettingMeta) {
  return z.boolean().default(def).meta(meta);
}

export function integer(
  def: number,
  min: number,
  max: number,
  meta: SettingMeta,
) {
  return z.number().int().min(min).max(max).default(def).meta({
    kind: "integer",
    ...meta,
  });
}

export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  def: T[number],
  meta: SettingMeta,
) {
  return z.enum(values).default(def as never).meta(meta);
}

/** "host:port" as a plain zod string (for list items). */
export function hostPortSchema() {
  return z.string().refine(isHostPort, {
    message: 'must be "host:port", such as "0.0.0.0:53" or "[::]:53"',
  });
}

export function hostPort(def: string, meta: SettingMeta) {
  return hostPortSchema().default(def).meta({ kind: "address", ...meta });
}

/** An address or a CIDR prefix as a plain zod string (for list items). */
export function prefixSchema() {
  return z.string().refine(isAddressOrPrefix, {
    message: 'must be an IP address or a CIDR prefix such as "10.0.0.0/8"',
  });
}

export function stringList(def: string[], meta: SettingMeta) {
  return z.array(z.string()).default(def).meta(meta);
}

/** IP addresses, one by one (no prefixes): "192.0.2.1", "2001:db8::1". */
export function addressList(def: string[], meta: SettingMeta) {
  const address = z.string().refine(isIpAddress, {
    message: 'must be an IP address such as "192.0.2.1" or "2001:db8::1"',
  });
  return z.array(address).default(def).meta({
    kind: "list of IP addresses",
    ...meta,
  });
}

export function prefixList(def: string[], meta: SettingMeta) {
  return z.array(prefixSchema()).default(def).meta({
    kind: "list of CIDR prefixes",
    ...meta,
  });
}
