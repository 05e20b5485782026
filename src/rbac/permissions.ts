/**
 * The permissions table: which role may use which verb on which resource of
 * the HTTP API. It is the one place the API's checks, the roles table in
 * docs/api.md and the OpenAPI security notes read (roles_table.ts renders
 * it), so the three cannot disagree. Every (resource, verb) pair the API
 * knows is one row here, naming every role that grants it; a pair without a
 * row is refused to everyone.
 */

/**
 * The verbs. The five CRUD verbs cover every object; the action verbs are
 * the few operations that are neither a read nor an object write, each named
 * for what it does so a role can be given it alone.
 */
export const VERBS = [
  "get",
  "list",
  "create",
  "update",
  "delete",
  "refresh",
  "flush",
  "set",
  "tail",
  "export",
] as const;
/** One of {@link VERBS}. */
export type Verb = (typeof VERBS)[number];

/** What each verb allows, for the docs' legend. */
export const VERB_HELP: Readonly<Record<Verb, string>> = {
  get: "read one object, or a resource that is a single thing",
  list: "read a collection (a watch is a list that stays open)",
  create: "create an object",
  update: "replace or patch an object",
  delete: "delete an object",
  refresh: "fetch a block list's sources now, not at the next interval",
  flush: "drop cached answers",
  set: "change a state (blocking on, off or paused)",
  tail: "follow new entries as they arrive",
  export: "download entries in bulk",
};

/**
 * The verbs that change nothing. A token narrowed by scopes keeps only these
 * on its owner's own objects (authorize.ts), and the auditor role has only
 * these.
 */
export const READ_VERBS: ReadonlySet<Verb> = new Set<Verb>([
  "get",
  "list",
  "tail",
  "export",
]);

/** The roles, in the order the docs' table shows them. */
export const ROLES = [
  "viewer",
  "operator",
  "admin",
  "auditor",
  "zone-admin",
] as const;
/** One of {@link ROLES}. */
export type Role = (typeof ROLES)[number];

/** What each role is for. */
export const ROLE_HELP: Readonly<Record<Role, string>> = {
  viewer:
    "reads configuration, objects and state; not the query log, the audit log, identities or secrets",
  operator:
    "a viewer who also runs the service day to day: blocking state, cache, list refresh, block lists, client groups, policies and record sets",
  admin: "everything",
  auditor:
    "reads everything, the query log and the audit log included; writes nothing",
  "zone-admin":
    "reads and writes the zones and record sets of its scope, and reads node health",
};

/**
 * Whether a resource can be granted per zone. `zone` resources are checked
 * at the scope of one DNSZone (a record set's by its zoneRef); `cluster`
 * resources only ever at cluster scope.
 */
export type ResourceScope = "cluster" | "zone";

/** What the table knows about one API resource. */
export interface ResourceInfo {
  scope: ResourceScope;
  /** Every verb the API offers on it; each has one row in PERMISSIONS. */
  verbs: readonly Verb[];
  help: string;
}

/**
 * The API resources. The first five are the object kinds, by the plural
 * their CRDs and API paths use.
 */
export const RESOURCE_INFO = {
  dnszones: {
    scope: "zone",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "DNSZone objects",
  },
  dnsrecordsets: {
    scope: "zone",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "DNSRecordSet objects, in the zone their zoneRef names",
  },
  blocklists: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete", "refresh"],
    help: "BlockList objects",
  },
  clientgroups: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "ClientGroup objects",
  },
  policies: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "Policy objects",
  },
  querylog: {
    scope: "cluster",
    verbs: ["get", "list", "tail", "export"],
    help:
      "the query log: who asked for what; also any statistic that names clients",
  },
  stats: {
    scope: "cluster",
    verbs: ["get"],
    help: "aggregate counts that name no client",
  },
  blocking: {
    scope: "cluster",
    verbs: ["get", "set"],
    help: "the blocking state: on, off, or paused until a time",
  },
  cache: {
    scope: "cluster",
    verbs: ["flush"],
    help: "the answer cache",
  },
  why: {
    scope: "cluster",
    verbs: ["get"],
    help:
      "explain the answer a name would get for a client (explaining a logged query also needs get on querylog)",
  },
  node: {
    scope: "cluster",
    verbs: ["get"],
    help: "node information and health",
  },
  config: {
    scope: "cluster",
    verbs: ["get"],
    help: "the effective configuration, secrets masked",
  },
  settings: {
    scope: "cluster",
    verbs: ["update"],
    help: "changing cluster settings (reading them is get on config)",
  },
  loader: {
    scope: "cluster",
    verbs: ["get"],
    help: "status of the objects loader",
  },
  audit: {
    scope: "cluster",
    verbs: ["get", "list"],
    help: "the audit log: who changed what",
  },
  users: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "user accounts",
  },
  serviceaccounts: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "accounts for programs",
  },
  tokens: {
    scope: "cluster",
    verbs: ["get", "list", "create", "delete"],
    help: "API tokens (never their secret, which is shown once at creation)",
  },
  rolebindings: {
    scope: "cluster",
    verbs: ["get", "list", "create", "update", "delete"],
    help: "RoleBinding objects: who holds which role where",
  },
  sessions: {
    scope: "cluster",
    verbs: ["get", "list", "delete"],
    help: "login sessions",
  },
} as const satisfies Record<string, ResourceInfo>;

/** An API resource name. */
export type Resource = keyof typeof RESOURCE_INFO;
/** Every resource, in the order the docs list them. */
export const RESOURCES = Object.keys(RESOURCE_INFO) as readonly Resource[];

/** One row of the table. */
export interface Permission {
  resource: Resource;
  verb: Verb;
  /** The roles that grant this verb on this resource. */
  roles: readonly Role[];
  /**
   * Anyone signed in may also do this on their own object (their user, a
   * token or session of theirs), whatever their roles: logging out and
   * managing one's own tokens must not need a binding. The API says which
   * object is whose (AccessRequest.self in authorize.ts).
   */
  self?: true;
}

function row(
  resource: Resource,
  verb: Verb,
  roles: readonly Role[],
  self?: "self",
): Permission {
  return self === undefined
    ? { resource, verb, roles }
    : { resource, verb, roles, self: true };
}

/**
 * The table, one row per (resource, verb). Written out in full rather than
 * derived from role definitions, one aligned line per row (hence unformatted),
 * so a review reads exactly who gets what.
 */
// deno-fmt-ignore
export const PERMISSIONS: readonly Permission[] = [
  row("dnszones",         "get",      ["viewer", "operator", "admin", "auditor", "zone-admin"]),
  row("dnszones",         "list",     ["viewer", "operator", "admin", "auditor", "zone-admin"]),
  // Adding a zone decides what every client hears for its names, so it is
  // not a day-to-day operation: an operator edits records, not zones.
  row("dnszones",         "create",   ["admin", "zone-admin"]),
  row("dnszones",         "update",   ["admin", "zone-admin"]),
  row("dnszones",         "delete",   ["admin", "zone-admin"]),

  row("dnsrecordsets",    "get",      ["viewer", "operator", "admin", "auditor", "zone-admin"]),
  row("dnsrecordsets",    "list",     ["viewer", "operator", "admin", "auditor", "zone-admin"]),
  row("dnsrecordsets",    "create",   ["operator", "admin", "zone-admin"]),
  row("dnsrecordsets",    "update",   ["operator", "admin", "zone-admin"]),
  row("dnsrecordsets",    "delete",   ["operator", "admin", "zone-admin"]),

  row("blocklists",       "get",      ["viewer", "operator", "admin", "auditor"]),
  row("blocklists",       "list",     ["viewer", "operator", "admin", "auditor"]),
  row("blocklists",       "create",   ["operator", "admin"]),
  row("blocklists",       "update",   ["operator", "admin"]),
  row("blocklists",       "delete",   ["operator", "admin"]),
  row("blocklists",       "refresh",  ["operator", "admin"]),

  row("clientgroups",     "get",      ["viewer", "operator", "admin", "auditor"]),
  row("clientgroups",     "list",     ["viewer", "operator", "admin", "auditor"]),
  row("clientgroups",     "create",   ["operator", "admin"]),
  row("clientgroups",     "update",   ["operator", "admin"]),
  row("clientgroups",     "delete",   ["operator", "admin"]),

  row("policies",         "get",      ["viewer", "operator", "admin", "auditor"]),
  row("policies",         "list",     ["viewer", "operator", "admin", "auditor"]),
  row("policies",         "create",   ["operator", "admin"]),
  row("policies",         "update",   ["operator", "admin"]),
  row("policies",         "delete",   ["operator", "admin"]),

  // The query log says who asked for what (docs/design.md#secure-by-default):
  // not for viewers or operators, only for those whose job is to look.
  row("querylog",         "get",      ["admin", "auditor"]),
  row("querylog",         "list",     ["admin", "auditor"]),
  row("querylog",         "tail",     ["admin", "auditor"]),
  row("querylog",         "export",   ["admin", "auditor"]),

  row("stats",            "get",      ["viewer", "operator", "admin", "auditor"]),

  row("blocking",         "get",      ["viewer", "operator", "admin", "auditor"]),
  row("blocking",         "set",      ["operator", "admin"]),

  row("cache",            "flush",    ["operator", "admin"]),

  row("why",              "get",      ["viewer", "operator", "admin", "auditor"]),

  // A zone admin may see whether the server that serves its zone is up.
  row("node",             "get",      ["viewer", "operator", "admin", "auditor", "zone-admin"]),

  row("config",           "get",      ["viewer", "operator", "admin", "auditor"]),
  // Settings include auth and rbac: changing them is changing who is admin.
  row("settings",         "update",   ["admin"]),

  row("loader",           "get",      ["viewer", "operator", "admin", "auditor"]),

  row("audit",            "get",      ["admin", "auditor"]),
  row("audit",            "list",     ["admin", "auditor"]),

  // Identities and who holds which role are personal data and a map for an
  // attacker: admins and auditors read them; everyone reads their own.
  row("users",            "get",      ["admin", "auditor"], "self"),
  row("users",            "list",     ["admin", "auditor"]),
  row("users",            "create",   ["admin"]),
  row("users",            "update",   ["admin"], "self"),
  row("users",            "delete",   ["admin"]),

  row("serviceaccounts",  "get",      ["admin", "auditor"]),
  row("serviceaccounts",  "list",     ["admin", "auditor"]),
  row("serviceaccounts",  "create",   ["admin"]),
  row("serviceaccounts",  "update",   ["admin"]),
  row("serviceaccounts",  "delete",   ["admin"]),

  // A token never carries more than its owner's rights (authorize.ts), so
  // anyone may make tokens for themselves.
  row("tokens",           "get",      ["admin", "auditor"], "self"),
  row("tokens",           "list",     ["admin", "auditor"], "self"),
  row("tokens",           "create",   ["admin"], "self"),
  row("tokens",           "delete",   ["admin"], "self"),

  row("rolebindings",     "get",      ["admin", "auditor"]),
  row("rolebindings",     "list",     ["admin", "auditor"]),
  row("rolebindings",     "create",   ["admin"]),
  row("rolebindings",     "update",   ["admin"]),
  row("rolebindings",     "delete",   ["admin"]),

  row("sessions",         "get",      ["admin", "auditor"], "self"),
  row("sessions",         "list",     ["admin", "auditor"], "self"),
  row("sessions",         "delete",   ["admin"], "self"),
];

const BY_KEY = new Map<string, Permission>(
  PERMISSIONS.map((p) => [`${p.resource} ${p.verb}`, p]),
);
const ROLE_NAMES: ReadonlySet<string> = new Set(ROLES);

/** The row for (resource, verb), or undefined when the API offers no such thing. */
export function permission(
  resource: string,
  verb: string,
): Permission | undefined {
  return BY_KEY.get(`${resource} ${verb}`);
}

/** Whether `name` is a role the table knows; unknown names grant nothing. */
export function isRole(name: string): name is Role {
  return ROLE_NAMES.has(name);
}

/** Whether `role` grants `verb` on `resource`, at any scope. */
export function roleGrants(
  role: string,
  resource: string,
  verb: string,
): boolean {
  return isRole(role) &&
    (permission(resource, verb)?.roles.includes(role) ?? false);
}

/** Whether `resource` can be granted per zone (dnszones, dnsrecordsets). */
export function isZoneScoped(resource: string): boolean {
  return (RESOURCE_INFO as Record<string, ResourceInfo>)[resource]?.scope ===
    "zone";
}
