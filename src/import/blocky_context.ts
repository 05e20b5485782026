/**
 * What the parts of the blocky importer share while they read one
 * config.yml: the report, unique object names per kind, the settings being
 * built, and the readers of blocky's value forms (durations, lists, client
 * keys). Kept apart so blocky_upstreams.ts, blocky_blocking.ts and
 * blocky_custom_dns.ts each stay about one section of the file.
 */
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { formatDuration, parseDuration } from "../config/duration.ts";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import type { ImportReport } from "./import_result.ts";

/** Namespaced objects the import creates live here (docs/blocking.md uses it). */
export const NAMESPACE = "default";

/** A YAML mapping as npm:yaml gives it. */
export type YamlMap = Record<string, unknown>;

export function isMap(value: unknown): value is YamlMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The state of one import. */
export class BlockyImport {
  readonly report: ImportReport = { mapped: [], skipped: [] };
  readonly objects: KObject[] = [];
  readonly settings: {
    upstreams?: {
      groups?: Record<string, Record<string, unknown>>;
      bootstrap?: string[];
      conditional?: Record<string, string>;
    };
    blocking?: Record<string, unknown>;
    cache?: Record<string, unknown>;
  } = {};
  /** blocky client key ("laptop*", "192.168.178.1/24") → its ClientGroup / Policy name. */
  readonly clientNames = new Map<string, string>();
  /** blocky client key → the kudurru upstream group its queries go to. */
  readonly clientUpstreams = new Map<string, string>();
  /** clientLookup.clients: the names blocky gives addresses. */
  readonly namedClients = new Map<string, string[]>();
  readonly #names = new Map<string, Set<string>>();

  mapped(where: string, what: string, detail: string): void {
    this.report.mapped.push({ where, what, detail });
  }

  skipped(where: string, what: string, detail: string): void {
    this.report.skipped.push({ where, what, detail });
  }

  /**
   * A name of `kind` no other object of the import has, from `wanted`
   * made a DNS-1123 name ("laptop*" → "laptop"); "-2", "-3"… on a clash.
   */
  uniqueName(kind: string, wanted: string, opts: { label?: boolean } = {}) {
    const taken = this.#names.get(kind) ?? new Set<string>();
    this.#names.set(kind, taken);
    const base = objectName(wanted, opts.label ?? false);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `-${n}`;
      name = `${base.slice(0, 63 - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  }

  /** Adds an object of the default namespace (or cluster-scoped without one). */
  add(kind: string, name: string, spec: unknown, namespaced = true): KObject {
    const object: KObject = {
      apiVersion: API_VERSION,
      kind,
      metadata: namespaced ? { name, namespace: NAMESPACE } : { name },
      spec,
    };
    this.objects.push(object);
    return object;
  }

  upstreams() {
    return this.settings.upstreams ??= {};
  }
}

/**
 * `wanted` as an object name: lower case, other characters as "-", at most
 * 63 long; `label` also turns dots into "-" (upstream group names are one
 * label, src/config/schema_resolver.ts).
 */
export function objectName(wanted: string, label: boolean): string {
  const allowed = label ? /[^a-z0-9-]+/g : /[^a-z0-9.-]+/g;
  const name = wanted.toLowerCase().replace(allowed, "-")
    .replace(/-+/g, "-").replace(/\.+/g, ".")
    .replace(/-?\.-?/g, ".").slice(0, 63)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return name === "" ? "imported" : name;
}

/**
 * Milliseconds of a blocky duration: Go-style text ("2s", "1h30m") or a
 * bare number, which blocky's Duration type reads as minutes. Undefined
 * when it is neither; negative values stay negative (blocky gives them
 * meanings such as "do not cache").
 */
export function blockyDurationMs(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) {
    return value * 60_000;
  }
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text) * 60_000;
  const negative = text.startsWith("-");
  const ms = parseDuration(negative ? text.slice(1) : text);
  if (ms === undefined) return undefined;
  return negative ? -ms : ms;
}

/** A positive duration as kudurru writes it ("1h", "1800ms"). */
export function kudurruDuration(ms: number): string {
  return formatDuration(ms);
}

/** A YAML value blocky reads as a list: a list, or one scalar. */
export function asList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === undefined || value === null) return [];
  return [value];
}

/** A compact rendering of a value for a report line. */
export function show(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** One ClientGroup client entry for a blocky client key. */
export type ClientEntry =
  | { ip: string; name?: string }
  | { cidr: string }
  | { hostname: string }
  | { nameGlob: string };

const HOSTNAME_GLOB_RE = /^[A-Za-z0-9*?_.\-[\]]+$/;

/**
 * How kudurru matches what a blocky client key names: an address, a
 * network, or a client name glob. blocky learns client names by reverse
 * DNS (clientLookup in blocky's configuration.md), which is what a
 * ClientGroup `hostname` glob matches.
 */
export function clientEntry(key: string): ClientEntry {
  if (isIpAddress(key)) return { ip: key };
  if (isCidr(key)) return { cidr: key };
  if (HOSTNAME_GLOB_RE.test(key)) return { hostname: key };
  return { nameGlob: key };
}

/** blocky's client name wildcards: `*` any run, `?` one character, `[0-9]` a range. */
export function globMatches(glob: string, name: string): boolean {
  let re = "^";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i);
      if (end < 0) re += "\\[";
      else {
        re += `[${glob.slice(i + 1, end).replace(/[\\^]/g, "\\$&")}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`${re}$`, "i").test(name);
  } catch {
    return false;
  }
}
