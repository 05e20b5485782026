/**
 * The API's validation answers (422 with `issues`: path and message) put
 * under the fields of the zone pages' forms. A record's add is checked
 * twice: its fields (`name`, `ttl`) by the route, and its data as the
 * record set it lands in (`spec.endpoints[0].targets[0]`); both name a
 * field of the form.
 */
import { ApiError } from "./api.ts";

export interface Issue {
  path: string;
  message: string;
}

/** The `issues` of an API error; none for anything else. */
export function issuesOf(error: unknown): Issue[] {
  if (!(error instanceof ApiError)) return [];
  const issues = error.details?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter((i): i is Issue =>
    typeof i === "object" && i !== null &&
    typeof (i as Issue).path === "string" &&
    typeof (i as Issue).message === "string"
  );
}

/** Messages by form field, and the issues no field of the form shows. */
export interface FieldErrors {
  fields: Record<string, string>;
  other: Issue[];
}

/**
 * The error's issues under the fields `fieldOf` names (the first message
 * per field; later ones join it); the rest in `other`.
 */
export function fieldErrors(
  error: unknown,
  fieldOf: (path: string) => string | undefined,
): FieldErrors {
  const fields: Record<string, string> = {};
  const other: Issue[] = [];
  for (const issue of issuesOf(error)) {
    const field = fieldOf(issue.path);
    if (field === undefined) other.push(issue);
    else {fields[field] = fields[field]
        ? `${fields[field]}; ${issue.message}`
        : issue.message;}
  }
  return { fields, other };
}

/** What the record set's endpoint fields are in the record form. */
const ENDPOINT_FIELDS: Record<string, string> = {
  dnsName: "name",
  recordType: "type",
  recordTTL: "ttl",
  targets: "data",
};

/** The record form's field an issue of adding a record is about. */
export function recordField(path: string): string | undefined {
  if (["name", "type", "ttl", "data"].includes(path)) return path;
  const m = /^spec\.endpoints\[\d+\]\.(\w+)/.exec(path);
  return m ? ENDPOINT_FIELDS[m[1]!] : undefined;
}

/** The zone form's field an issue of a DNSZone write is about. */
export function zoneField(path: string): string | undefined {
  if (path === "metadata.name") return "name";
  const m = /^spec\.(\w+)(?:\.(\w+))?/.exec(path);
  if (m === null) return undefined;
  const [, top, sub] = m;
  if (top === "zoneName" || top === "nameservers" || top === "defaultTTL") {
    return top;
  }
  if (top === "soa") {
    return sub !== undefined &&
        ["mname", "rname", "refresh", "retry", "expire", "minimum"].includes(
          sub,
        )
      ? sub
      : "mname";
  }
  return undefined;
}

/**
 * An error to show in the form's error box: none when every issue is shown
 * under its field; otherwise the error itself (its message names the
 * first issue, its hint says what to do).
 */
export function boxError(error: unknown, errors: FieldErrors): unknown {
  if (error === undefined) return undefined;
  if (issuesOf(error).length > 0 && errors.other.length === 0) return undefined;
  return error;
}
