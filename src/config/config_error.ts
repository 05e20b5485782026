/**
 * ConfigError and the translation of zod issues into messages that name the
 * key, say what is wrong and what is allowed.
 */
import type { z } from "zod";
import { closestMatch } from "./closest_match.ts";
import { configSchema } from "./schema.ts";
import { keysOf, schemaAt } from "./schema_walk.ts";

/** A configuration that cannot be loaded; the message lists every problem. */
export class ConfigError extends Error {
  /** The file, or null when only the environment and defaults were read. */
  readonly source: string | null;
  /** One line per problem, each starting with the key path or variable. */
  readonly problems: string[];

  constructor(
    source: string | null,
    problems: string[],
    options?: ErrorOptions,
  ) {
    const where = source === null
      ? "the configuration (embedded defaults)"
      : `"${source}"`;
    super(`Cannot load ${where}: ${problems.join("; ")}`, options);
    this.name = "ConfigError";
    this.source = source;
    this.problems = problems;
  }
}

/** "listeners.dns[0].address", `upstreams.conditional["corp.example."]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(seg))) {
      out += (out ? "." : "") + String(seg);
    } else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || "(top level)";
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let cur = raw;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `the string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
};

function unknownKey(path: readonly PropertyKey[], key: string): string {
  const allowed = keysOf(schemaAt(configSchema, path));
  const guess = closestMatch(key, allowed);
  const hint = guess
    ? ` (did you mean "${guess}"?)`
    : ` (allowed: ${allowed.join(", ")})`;
  return `${formatPath([...path, key])}: unknown key${hint}`;
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const value = valueAt(raw, issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "is required";
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${
        describeValue(value)
      }`;
    case "invalid_value":
      return `must be one of ${
        issue.values.map((v) => JSON.stringify(v)).join(", ")
      }, ` +
        `not ${describeValue(value)}`;
    case "too_small":
      if (issue.origin === "array") {
        return `needs at least ${issue.minimum} item(s)`;
      }
      if (issue.origin === "string") {
        return issue.minimum === 1
          ? "must not be empty"
          : `needs at least ${issue.minimum} characters`;
      }
      return `must be at least ${issue.minimum}, not ${describeValue(value)}`;
    case "too_big":
      if (issue.origin === "array") {
        return `may have at most ${issue.maximum} item(s)`;
      }
      return `must be at most ${issue.maximum}, not ${describeValue(value)}`;
    case "invalid_format":
      if (issue.format === "url") {
        return `must be a URL, not ${describeValue(value)}`;
      }
      if (issue.format === "starts_with") {
        return `${issue.message.replace(/^Invalid string: /, "")}`;
      }
      if (issue.format === "regex") {
        return `must match ${issue.pattern ?? "the allowed pattern"}, not ${
          describeValue(value)
        }`;
      }
      return issue.message;
    case "invalid_key":
      return `has a key that is not allowed: ${
        issue.issues.map((i) => i.message).join(", ")
      }`;
    default:
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
}

/**
 * One message per problem. `envVariables` maps dotted keys set from the
 * environment to their variable so the message says where the value came from.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  envVariables: ReadonlyMap<string, string> = new Map(),
): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push(unknownKey(issue.path, key));
      continue;
    }
    let where = formatPath(issue.path);
    for (const [key, variable] of envVariables) {
      if (
        where === key || where.startsWith(key + ".") ||
        where.startsWith(key + "[")
      ) {
        where += ` (from ${variable})`;
        break;
      }
    }
    out.push(`${where}: ${describeIssue(issue, raw)}`);
  }
  return out;
}
