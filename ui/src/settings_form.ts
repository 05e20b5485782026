/**
 * The settings page's logic, apart from its components: keys grouped by
 * section, the input each type gets, a draft's text read back as the JSON
 * value kudurru.yaml would hold, and the merge patch of every change.
 */
import { strings } from "./strings.ts";

/** One key as GET /api/v1/settings lists it. */
export interface Setting {
  key: string;
  value: unknown;
  source: "env" | "api" | "file";
  help: string;
  type: string;
  default?: unknown;
  defaultText?: string;
  allowed?: string[];
  env: string;
  hostOnly: boolean;
  envLocked: boolean;
  restartRequired: boolean;
  live: boolean;
  pendingRestart: boolean;
}

/** GET /api/v1/settings. */
export interface SettingsView {
  settings: Setting[];
  sections: Record<string, string>;
  overrides: Record<string, unknown>;
  resourceVersion?: string;
}

/** PATCH /api/v1/settings. */
export interface SettingsPatchResult {
  applied: string[];
  restartRequired: string[];
  overrides: Record<string, unknown>;
}

export interface Section {
  name: string;
  help: string;
  settings: Setting[];
}

/** The keys by top-level section, in the API's order (the schema's). */
export function groupBySection(
  settings: readonly Setting[],
  help: Record<string, string> = {},
): Section[] {
  const sections = new Map<string, Section>();
  for (const setting of settings) {
    const name = setting.key.split(".")[0]!;
    let section = sections.get(name);
    if (section === undefined) {
      section = { name, help: help[name] ?? "", settings: [] };
      sections.set(name, section);
    }
    section.settings.push(setting);
  }
  return [...sections.values()];
}

/** Keys whose name or help holds every word of `query`. */
export function filterSettings(
  settings: readonly Setting[],
  query: string,
): Setting[] {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return [...settings];
  return settings.filter((s) => {
    const text = `${s.key} ${s.help}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** The input a key gets. */
export type InputKind = "checkbox" | "select" | "number" | "text" | "json";

export function inputKind(
  setting: Pick<Setting, "type" | "allowed">,
): InputKind {
  const type = setting.type;
  if (type === "boolean") return "checkbox";
  if (type === "enum" && setting.allowed !== undefined) return "select";
  if (type === "integer" || type === "number") return "number";
  // Lists, maps and objects are edited as the JSON kudurru.yaml's YAML
  // would hold.
  if (/^(list|map) of /.test(type) || type === "object" || type === "any") {
    return "json";
  }
  // string, duration, size, address and the other kinds written as text.
  return "text";
}

/** Why the API refuses to change a key, or undefined when it may. */
export type Lock = "env" | "envAlways" | "host";

export function lockOf(setting: Setting): Lock | undefined {
  if (setting.hostOnly) return "host";
  if (setting.envLocked) return setting.source === "env" ? "env" : "envAlways";
  return undefined;
}

/** Where the value comes from, as the page says it. */
export type Origin = "env" | "api" | "file" | "default";

export function originOf(setting: Setting): Origin {
  if (setting.source !== "file") return setting.source;
  return "default" in setting && sameValue(setting.value, setting.default)
    ? "default"
    : "file";
}

/** A draft: what the input holds (a checkbox's boolean, else its text). */
export type Draft = string | boolean;

/** A value as its input shows it. */
export function draftOf(value: unknown, kind: InputKind): Draft {
  if (kind === "checkbox") return value === true;
  if (kind === "json") return JSON.stringify(value ?? null, null, 2);
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : String(value);
}

/** A value as read-only text. */
export function shownValue(value: unknown): string {
  if (value === undefined || value === null || value === "") return "—";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") {
    return value ? strings.settings.yes : strings.settings.no;
  }
  return JSON.stringify(value);
}

/** A draft read back as the value to send, or why it cannot be. */
export function parseDraft(
  draft: Draft,
  kind: InputKind,
): { value: unknown } | { error: string } {
  if (typeof draft === "boolean") return { value: draft };
  switch (kind) {
    case "number": {
      const text = draft.trim();
      const n = Number(text);
      return text !== "" && Number.isFinite(n)
        ? { value: n }
        : { error: strings.settings.mustBeNumber };
    }
    case "json":
      try {
        return { value: JSON.parse(draft) };
      } catch {
        return { error: strings.settings.mustBeJson };
      }
    case "checkbox":
      return { value: draft === "true" };
    default:
      return { value: draft.trim() };
  }
}

/**
 * The merge patch (RFC 7396) that sets each key to its value; null gives a
 * key back to the file.
 */
export function mergePatchOf(
  changes: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of changes) {
    const parts = key.split(".");
    let at = patch;
    for (const part of parts.slice(0, -1)) {
      const next = at[part];
      if (typeof next === "object" && next !== null && !Array.isArray(next)) {
        at = next as Record<string, unknown>;
      } else {
        at = at[part] = {};
      }
    }
    at[parts[parts.length - 1]!] = value;
  }
  return patch;
}

/**
 * The API's issues of a refused patch by key: `path` names the key, or the
 * message starts with it ("cache.maxTTL: must be …", from the schema), or
 * with a place inside it ("upstreams.groups.default.timeout: …"). The rest
 * have no field.
 */
export function issuesByKey(
  issues: readonly { path: string; message: string }[],
  keys: readonly string[],
): { byKey: Record<string, string>; rest: string[] } {
  const byKey: Record<string, string> = {};
  const rest: string[] = [];
  const owner = (path: string) =>
    keys.filter((k) =>
      path === k || path.startsWith(`${k}.`) || path.startsWith(`${k}[`)
    ).sort((a, b) => b.length - a.length)[0];
  for (const issue of issues) {
    let path = issue.path;
    let message = issue.message;
    if (path === "") {
      const m = /^([\w.[\]-]+)(?: \([^)]*\))?: (.*)$/s.exec(message);
      if (m) {
        path = m[1]!;
        message = m[2]!;
      }
    }
    const key = owner(path);
    if (key === undefined) {
      rest.push(issue.path === "" ? issue.message : `${path}: ${message}`);
    } else {
      const place = path.slice(key.length).replace(/^\./, "");
      const inside = place === "" ? "" : `${place}: `;
      byKey[key] = byKey[key] === undefined
        ? `${inside}${message}`
        : `${byKey[key]}; ${inside}${message}`;
    }
  }
  return { byKey, rest };
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
