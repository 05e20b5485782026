/**
 * A role binding: a role, where it applies and who holds it. The config's
 * `rbac.bindings` entries have this shape, and so will the spec of the
 * RoleBinding objects the API makes; authorize() takes both as one array.
 */
import type { Subject } from "./principal.ts";
import { type BindingScope, bindingScopeLabel } from "./scope.ts";

/** A role binding, as the config's `rbac.bindings[]` spells it. */
export interface Binding {
  /** A role of the permissions table; any other name grants nothing. */
  role: string;
  scope: BindingScope;
  subjects: readonly Subject[];
}

/** `Group "corp:ops"`, `ServiceAccount "kube-system/external-dns"`. */
export function describeSubject(subject: Subject): string {
  const name = subject.namespace === undefined || subject.namespace === ""
    ? subject.name
    : `${subject.namespace}/${subject.name}`;
  return `${subject.kind} ${JSON.stringify(name)}`;
}

/** `operator at cluster`, `zone-admin at zone:corp-example`. */
export function describeGrant(role: string, scope: BindingScope): string {
  return `${role} at ${bindingScopeLabel(scope)}`;
}

/** `operator at cluster for Group "corp:ops", User "alice"`. */
export function describeBinding(binding: Binding): string {
  return `${describeGrant(binding.role, binding.scope)} for ${
    binding.subjects.map(describeSubject).join(", ")
  }`;
}
