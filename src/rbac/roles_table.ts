/**
 * The permissions table as text: the Markdown table of docs/api.md and the
 * security note of each OpenAPI operation. Both are rendered from
 * permissions.ts, never written by hand, so they cannot drift from what the
 * API enforces. Output is deterministic: the table's own order throughout.
 */
import {
  permission,
  PERMISSIONS,
  type Resource,
  RESOURCE_INFO,
  RESOURCES,
  ROLE_HELP,
  ROLES,
  type Verb,
  VERB_HELP,
  VERBS,
} from "./permissions.ts";

const NONE = "-";

/**
 * Resources down, roles across; each cell lists the verbs the role grants
 * on the resource, and "own" the verbs anyone has on their own objects.
 * Columns are padded the way `deno fmt` pads them, so the generated page
 * passes `deno fmt --check` as written.
 */
export function rolesMarkdownTable(): string {
  const header = ["resource", "scope", ...ROLES, "own"];
  const rows = RESOURCES.map((resource) => [
    `\`${resource}\``,
    RESOURCE_INFO[resource].scope,
    ...ROLES.map((role) =>
      cell(verbsOf(resource, (p) => p.roles.includes(role)))
    ),
    cell(verbsOf(resource, (p) => p.self === true)),
  ]);
  return markdownTable(header, rows);
}

/** What each role is for, as a two-column Markdown table. */
export function roleHelpMarkdownTable(): string {
  return markdownTable(
    ["role", "for"],
    ROLES.map((role) => [`\`${role}\``, ROLE_HELP[role]]),
  );
}

/** The verbs as a two-column Markdown table, for the legend under the roles. */
export function verbsMarkdownTable(): string {
  return markdownTable(
    ["verb", "allows"],
    VERBS.map((verb) => [`\`${verb}\``, VERB_HELP[verb]]),
  );
}

/**
 * The security note of one API operation, e.g. "Needs update on dnszones
 * (cluster or zone scope); roles: admin, zone-admin". Roles are listed
 * alphabetically. Throws for a pair the table lacks: a route that needs a
 * permission nobody can hold is a bug to catch when the routes are built.
 */
export function routeSecurityNote(resource: Resource, verb: Verb): string {
  const row = permission(resource, verb);
  if (row === undefined) {
    throw new Error(
      `the permissions table has no row for ${verb} on ${resource}`,
    );
  }
  const scope = RESOURCE_INFO[resource].scope === "zone"
    ? "cluster or zone scope"
    : "cluster scope";
  const roles = [...row.roles].sort().join(", ");
  const own = row.self === true ? "; anyone may on their own" : "";
  return `Needs ${verb} on ${resource} (${scope}); roles: ${roles}${own}`;
}

function verbsOf(
  resource: Resource,
  keep: (p: (typeof PERMISSIONS)[number]) => boolean,
): Verb[] {
  const granted = new Set(
    PERMISSIONS.filter((p) => p.resource === resource && keep(p)).map((p) =>
      p.verb
    ),
  );
  // The resource's own verb order, so a cell reads like the API's routes.
  return RESOURCE_INFO[resource].verbs.filter((v) => granted.has(v));
}

function cell(verbs: readonly Verb[]): string {
  return verbs.length === 0 ? NONE : verbs.join(", ");
}

/** A Markdown table padded the way `deno fmt` pads one. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => r[i]!.length))
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(header),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...rows.map(line),
  ].join("\n") + "\n";
}
