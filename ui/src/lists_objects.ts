/**
 * The objects the block list, group and policy pages read and write
 * (BlockList, ClientGroup, Policy: src/api/v1alpha1), how they are named
 * and addressed, who may change them, and the field errors of a refused
 * write.
 */
import { ApiError } from "./api.ts";
import { fill, strings } from "./strings.ts";

export interface ObjectMeta {
  name: string;
  namespace?: string;
  resourceVersion?: string;
  generation?: number;
  managedBy?: string;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface KObject<Spec, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
}

/** A page of a kind's list answer. */
export interface Items<T> {
  items: T[];
}

export interface ListSource {
  url?: string;
  inline?: string;
  configMapRef?: { name: string; key: string };
  format?: string;
  enabled?: boolean;
  name?: string;
}

export interface SourceStatus {
  url?: string;
  name?: string;
  ruleCount?: number;
  invalid?: number;
  unsupported?: number;
  examples?: string[];
  title?: string;
  lastFetched?: string;
  error?: string;
}

export interface BlockListSpec {
  mode?: "block" | "allow";
  sources: ListSource[];
  refreshInterval?: string;
  response?: { mode: string; customIPs?: string[] };
}

export interface BlockListStatus {
  sources?: SourceStatus[];
  observedGeneration?: number;
  conditions?: Condition[];
}

export type BlockList = KObject<BlockListSpec, BlockListStatus>;

/** One member of a ClientGroup: exactly one matcher, and a label. */
export interface Client {
  ip?: string;
  cidr?: string;
  mac?: string;
  clientID?: string;
  hostname?: string;
  nameGlob?: string;
  name?: string;
  comment?: string;
}

export type ClientGroup = KObject<{ clients?: Client[] }>;

export interface Schedule {
  weekdays?: string[];
  start: string;
  end: string;
  tz?: string;
}

export interface PolicySpec {
  clientGroupRefs?: string[];
  blockListRefs?: string[];
  allowListRefs?: string[];
  allowOnly?: boolean;
  schedule?: Schedule;
  upstreamGroup?: string;
  blockMode?: string;
  customIPs?: string[];
  blockTTL?: string;
  priority?: number;
}

export type Policy = KObject<PolicySpec>;

/** The namespace the pages create objects in unless told another. */
export const DEFAULT_NAMESPACE = "default";

/** "kids/ads", or "ads" in the default namespace (as answers name lists). */
export function displayName(obj: KObject<unknown>): string {
  const ns = obj.metadata.namespace ?? DEFAULT_NAMESPACE;
  return ns === DEFAULT_NAMESPACE
    ? obj.metadata.name
    : `${ns}/${obj.metadata.name}`;
}

/** "default/ads": how "why" names groups, policies and lists. */
export function qualifiedName(obj: KObject<unknown>): string {
  return `${obj.metadata.namespace ?? DEFAULT_NAMESPACE}/${obj.metadata.name}`;
}

/** The API path of a namespaced object of `plural` (blocklists, …). */
export function objectPath(plural: string, obj: KObject<unknown>): string {
  const ns = encodeURIComponent(obj.metadata.namespace ?? DEFAULT_NAMESPACE);
  return `namespaces/${ns}/${plural}/${encodeURIComponent(obj.metadata.name)}`;
}

/** The collection path of `plural` in `namespace`. */
export function collectionPath(plural: string, namespace: string): string {
  return `namespaces/${encodeURIComponent(namespace)}/${plural}`;
}

/**
 * Who manages an object and whether the UI may change it: a file, an
 * integration or kudurru itself keep theirs (the API would answer 409
 * managed_by); the first start's defaults are taken over by a change.
 */
export function ownership(
  obj: KObject<unknown>,
): { readOnly: boolean; note?: string } {
  const owner = obj.metadata.managedBy ?? "";
  const t = strings.lists;
  if (owner === "" || owner === "api") return { readOnly: false };
  if (owner === "bootstrap") return { readOnly: false, note: t.bootstrapNote };
  if (owner.startsWith("file:")) {
    return {
      readOnly: true,
      note: fill(t.managedByFile, { file: owner.slice(5) }),
    };
  }
  return { readOnly: true, note: fill(t.managedBy, { owner }) };
}

/** An issue of a 422: the field's dotted path and what is wrong with it. */
export interface Issue {
  path: string;
  message: string;
}

/** The issues of a refused write (422 `invalid` or `unknown_field`). */
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

/**
 * Field errors keyed by path. A form field shows the error of its own
 * path or of any path below it (`spec.customIPs[1]` under
 * `spec.customIPs`); `rest` are those no field named in `fields` shows.
 */
export function fieldErrors(
  issues: readonly Issue[],
  fields: readonly string[],
): { byField: Record<string, string>; rest: Issue[] } {
  const byField: Record<string, string> = {};
  const rest: Issue[] = [];
  for (const issue of issues) {
    const field = fields.find((f) =>
      issue.path === f || issue.path.startsWith(`${f}.`) ||
      issue.path.startsWith(`${f}[`)
    );
    if (field === undefined) rest.push(issue);
    else {
      byField[field] = byField[field]
        ? `${byField[field]}; ${issue.message}`
        : issue.message;
    }
  }
  return { byField, rest };
}

/** Names of the objects in `namespace`, sorted. */
export function namesIn(
  objects: readonly KObject<unknown>[],
  namespace: string,
): string[] {
  return objects
    .filter((o) => (o.metadata.namespace ?? DEFAULT_NAMESPACE) === namespace)
    .map((o) => o.metadata.name)
    .sort();
}

/** DNS-1123 subdomain: the rule for object names. */
export const OBJECT_NAME_RE =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `name` cannot name an object, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name === "") return strings.lists.nameRequired;
  if (name.length > 253 || !OBJECT_NAME_RE.test(name)) {
    return strings.lists.nameInvalid;
  }
  return undefined;
}
