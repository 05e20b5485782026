/**
 * Who makes a request (the Principal the API's authentication produces) and
 * which binding subjects name them.
 */

/**
 * One scope of an API token: the token may do what `role` grants at `scope`
 * (cluster when absent). A read-only dashboard token is `[{ role: "viewer" }]`.
 * The scope is typed as loosely as an APIToken stores it, so a stored token
 * passes as is; a zone without a name or a named cluster grants nothing
 * (validateTokenScopes refuses both).
 */
export interface TokenScope {
  role: string;
  scope?: { kind: "cluster" | "zone"; name?: string | undefined } | undefined;
}

/** Who makes a request, as authentication established it. */
export interface Principal {
  kind: "User" | "ServiceAccount";
  /**
   * The user or account name. A Kubernetes service account is named as the
   * apiserver names it, `system:serviceaccount:<namespace>:<name>`, so a
   * TokenReview's username passes through unchanged.
   */
  name: string;
  /** Group names as the identity provider's mapping prefixed them. */
  groups: string[];
  /** How the request was authenticated. */
  via: "session" | "token" | "socket" | "anonymous";
  /**
   * The scopes of the API token the request came with. Absent or empty (an
   * APIToken's `scopes: []`): the owner's full rights. Otherwise at most what
   * one of them grants (authorize.ts).
   */
  tokenScopes?: TokenScope[] | undefined;
}

/** A binding subject, as the config's `rbac.bindings[].subjects` spells it. */
export interface Subject {
  kind: "User" | "Group" | "ServiceAccount";
  name: string;
  /** Only for a Kubernetes service account. */
  namespace?: string | undefined;
}

const SA_PREFIX = "system:serviceaccount:";

/** The principal name of a Kubernetes service account. */
export function kubernetesServiceAccountName(
  namespace: string,
  name: string,
): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/**
 * Whether `subject` names `principal`. User and ServiceAccount names are
 * separate: a user "ci" is not the service account "ci". A ServiceAccount
 * subject with a namespace is a Kubernetes one; without, one of kudurru's
 * own. A Group subject matches any principal in that group. A subject with
 * a namespace where none belongs (validate.ts reports it) matches nobody.
 */
export function subjectMatches(
  subject: Subject,
  principal: Principal,
): boolean {
  const hasNamespace = subject.namespace !== undefined &&
    subject.namespace !== "";
  switch (subject.kind) {
    case "User":
      return !hasNamespace && principal.kind === "User" &&
        principal.name === subject.name;
    case "Group":
      return !hasNamespace && principal.groups.includes(subject.name);
    case "ServiceAccount":
      return principal.kind === "ServiceAccount" &&
        principal.name ===
          (hasNamespace
            ? kubernetesServiceAccountName(subject.namespace!, subject.name)
            : subject.name);
    default:
      return false;
  }
}

/**
 * The subject that names this one principal (not its groups), for a
 * binding made for it; undefined for an anonymous request, which is nobody
 * to bind.
 */
export function subjectFor(principal: Principal): Subject | undefined {
  if (principal.via === "anonymous") return undefined;
  if (principal.kind === "User") return { kind: "User", name: principal.name };
  if (principal.name.startsWith(SA_PREFIX)) {
    const rest = principal.name.slice(SA_PREFIX.length);
    const colon = rest.indexOf(":");
    if (colon > 0 && colon < rest.length - 1) {
      return {
        kind: "ServiceAccount",
        namespace: rest.slice(0, colon),
        name: rest.slice(colon + 1),
      };
    }
  }
  return { kind: "ServiceAccount", name: principal.name };
}
