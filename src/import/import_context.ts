/**
 * What the parts of an importer share (AdGuard Home's first; Pi-hole's and
 * Technitium's too): the report being written, the key paths already
 * accounted for (so the leftovers can be reported as skipped, never
 * dropped in silence), the small helpers for object names and domain names
 * every part needs, and the last check of every object made.
 */
import {
  API_VERSION,
  formatKey,
  keyOf,
  type KObject,
} from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import type { ImportNote, ImportReport } from "./import_result.ts";

/** Namespace of every namespaced object the import writes. */
export const NAMESPACE = "default";

/** A YAML mapping as npm:yaml gives it. */
export type YamlMap = Record<string, unknown>;

export function isMap(value: unknown): value is YamlMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The report of one import, and which input keys have been looked at. */
export class ImportContext {
  readonly report: ImportReport = { mapped: [], skipped: [] };
  /** Dotted key paths ("dns.upstream_dns") a part has mapped or reported. */
  readonly handled = new Set<string>();
  /** Object names taken, per kind. */
  readonly #names = new Map<string, Set<string>>();

  mapped(where: string, what: string, detail: string): void {
    this.report.mapped.push(note(where, what, detail));
  }

  skipped(where: string, what: string, detail: string): void {
    this.report.skipped.push(note(where, what, detail));
  }

  /** Marks key paths as accounted for. */
  handle(...paths: string[]): void {
    for (const path of paths) this.handled.add(path);
  }

  /**
   * A name for a new object of `kind` built from `text`: a lowercase
   * DNS-1123 name, made unique within the kind with "-2", "-3"….
   */
  uniqueName(kind: string, text: string, fallback: string): string {
    const taken = this.#names.get(kind) ?? new Set<string>();
    this.#names.set(kind, taken);
    const base = objectName(text) ?? fallback;
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
    taken.add(name);
    return name;
  }
}

function note(where: string, what: string, detail: string): ImportNote {
  return { where, what, detail };
}

/**
 * `text` as an object name: lowercase, runs of anything but [a-z0-9.] as
 * one "-", dots kept (a domain stays readable), at most 60 characters.
 * Undefined when nothing is left.
 */
export function objectName(text: string): string | undefined {
  const name = text.toLowerCase()
    .replace(/[^a-z0-9.]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/-*\.-*/g, ".")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 60)
    .replace(/[-.]+$/, "");
  return name === "" ? undefined : name;
}

/** An upstream group name: `[a-z0-9-]`, no dash at either end. */
export function groupName(text: string): string | undefined {
  const name = objectName(text)?.replace(/\./g, "-");
  return name === undefined || name === "" ? undefined : name;
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A host name as AdGuard Home writes them in rewrites and upstream
 * domains, lower-cased and without a trailing dot; undefined when it is not
 * one (labels of letters, digits, "-" and "_").
 */
export function hostName(text: string): string | undefined {
  const name = text.trim().toLowerCase().replace(/\.$/, "");
  if (name === "" || name.length > 253) return undefined;
  return name.split(".").every((label) => LABEL.test(label)) ? name : undefined;
}

/** A namespaced object of the import. */
export function namespaced(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
): KObject {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: NAMESPACE },
    spec,
  };
}

/**
 * A value that configures something: not null, "", [], {}, false or 0
 * (AdGuard Home writes every key; those say "off" or "none").
 */
export function hasValue(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return false;
  if (value === false || value === 0) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return Object.keys(value).length > 0;
  return true;
}

/** A list of strings from a YAML value; anything else gives []. */
export function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === "string");
}

/** Seconds as a Go-style duration ("10s"). */
export function seconds(n: number): string {
  return `${n}s`;
}

/** Every object checked as the API would; one that fails is reported, not returned. */
export function validOnly(ctx: ImportContext, objects: KObject[]): KObject[] {
  return objects.filter((object) => {
    const result = validateObject(object);
    if (result.ok) return true;
    ctx.skipped(
      formatKey(keyOf(object)),
      object.kind,
      `invalid: ${
        result.issues.map((i) => `${i.path}: ${i.message}`).join("; ")
      }`,
    );
    return false;
  });
}
