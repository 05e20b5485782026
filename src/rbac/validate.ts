/**
 * The checks a binding or a token's scopes must pass beyond their schema's
 * shape, chiefly that every role exists: authorize() lets an unknown role
 * grant nothing, and these say so up front, so the API can refuse the object
 * (422) and the config loader can name the key.
 */
import { isRole, ROLES } from "./permissions.ts";
import type { TokenScope } from "./principal.ts";
import type { Binding } from "./binding.ts";

/** One problem with one field. */
export interface RbacIssue {
  /** Dotted path with indices, e.g. `subjects[1].namespace`. */
  path: string;
  message: string;
}

const SCOPE_KINDS = ["cluster", "zone", "zonegroup", "clientgroup"];
const SUBJECT_KINDS = ["User", "Group", "ServiceAccount"];

/**
 * Every problem with a binding; none means it is accepted. A zonegroup or
 * clientgroup scope is accepted though it grants nothing yet (scope.ts).
 * `prefix` is the binding's path in its document, e.g. `rbac.bindings[2]`.
 */
export function validateBinding(binding: Binding, prefix = ""): RbacIssue[] {
  const at = (path: string) => (prefix === "" ? path : `${prefix}.${path}`);
  const issues = roleIssues(binding.role, at("role"));
  const scope = binding.scope;
  if (!SCOPE_KINDS.includes(scope.kind)) {
    issues.push({
      path: at("scope.kind"),
      message: `must be one of: ${SCOPE_KINDS.join(", ")}`,
    });
  } else {
    issues.push(...scopeNameIssues(scope.kind, scope.name, at("scope.name")));
  }
  if (binding.subjects.length === 0) {
    issues.push({
      path: at("subjects"),
      message: "needs at least one subject",
    });
  }
  binding.subjects.forEach((subject, i) => {
    const path = at(`subjects[${i}]`);
    if (!SUBJECT_KINDS.includes(subject.kind)) {
      issues.push({
        path: `${path}.kind`,
        message: `must be one of: ${SUBJECT_KINDS.join(", ")}`,
      });
    }
    if (subject.name === "") {
      issues.push({ path: `${path}.name`, message: "must not be empty" });
    }
    if (
      subject.namespace !== undefined && subject.namespace !== "" &&
      subject.kind !== "ServiceAccount"
    ) {
      issues.push({
        path: `${path}.namespace`,
        message:
          `only a ServiceAccount has a namespace; remove it from this ${subject.kind}`,
      });
    }
  });
  return issues;
}

/**
 * Every problem with a token's scopes; none means they are accepted. An
 * empty list is accepted: it is how a token asks for its owner's full
 * rights (APIToken's `scopes` default).
 */
export function validateTokenScopes(
  scopes: readonly TokenScope[],
  prefix = "scopes",
): RbacIssue[] {
  const issues: RbacIssue[] = [];
  scopes.forEach((scope, i) => {
    const path = `${prefix}[${i}]`;
    issues.push(...roleIssues(scope.role, `${path}.role`));
    if (scope.scope === undefined) return;
    const { kind } = scope.scope;
    if (kind !== "cluster" && kind !== "zone") {
      issues.push({
        path: `${path}.scope.kind`,
        message: "must be cluster or zone",
      });
      return;
    }
    issues.push(
      ...scopeNameIssues(kind, scope.scope.name, `${path}.scope.name`),
    );
  });
  return issues;
}

function roleIssues(role: string, path: string): RbacIssue[] {
  return isRole(role) ? [] : [{
    path,
    message: `unknown role ${JSON.stringify(role)}; roles: ${ROLES.join(", ")}`,
  }];
}

function scopeNameIssues(
  kind: string,
  name: string | undefined,
  path: string,
): RbacIssue[] {
  const hasName = name !== undefined && name !== "";
  if (kind === "cluster") {
    return hasName
      ? [{ path, message: "must be empty for a cluster scope" }]
      : [];
  }
  if (hasName) return [];
  const what = kind === "zone"
    ? "the DNSZone object's name"
    : kind === "zonegroup"
    ? "the zones' label selector"
    : "the ClientGroup's name";
  return [{ path, message: `is required for a ${kind} scope (${what})` }];
}
