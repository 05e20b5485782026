/**
 * The object envelope every kudurru kind shares: apiVersion, kind, metadata,
 * spec and status. Kind-specific schemas live beside this file.
 */
import { z } from "zod";

export const GROUP = "kudurru.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Annotation mirroring metadata.managedBy, as the kube driver writes it. */
export const MANAGED_BY_ANNOTATION = "kudurru.io/managed-by";

/** Who owns an object (docs/design.md#objects-and-ownership). */
export type Manager =
  | "api"
  | "bootstrap"
  | "system"
  | `file:${string}`
  | `integration:${string}`;

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  managedBy?: string;
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** Any stored object; kind-specific code narrows spec and status. */
export interface KObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
}

/** DNS-1123 subdomain, the Kubernetes rule for object names. */
export const OBJECT_NAME_RE =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** DNS-1123 label, the Kubernetes rule for namespaces. */
export const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const labelMap = z.record(z.string().max(317), z.string().max(63));

export const objectMetaSchema = z.strictObject({
  name: z.string().max(253).regex(
    OBJECT_NAME_RE,
    "must be a lowercase DNS-1123 subdomain (a-z, 0-9, '-', '.')",
  ),
  namespace: z.string().max(63).regex(
    NAMESPACE_RE,
    "must be a lowercase DNS-1123 label",
  ).optional(),
  labels: labelMap.optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  uid: z.string().optional(),
  generation: z.number().int().nonnegative().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
  managedBy: z.string().optional(),
  /** Accepted so `kubectl get -o yaml` output loads; never stored. */
  managedFields: z.array(z.unknown()).optional(),
});

export const conditionSchema = z.strictObject({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string().optional(),
  observedGeneration: z.number().int().optional(),
  lastTransitionTime: z.string().optional(),
});

/** Identifies one object in a Store. namespace is "" for cluster-scoped kinds. */
export interface ObjectKey {
  kind: string;
  namespace: string;
  name: string;
}

export function keyOf(obj: KObject): ObjectKey {
  return {
    kind: obj.kind,
    namespace: obj.metadata.namespace ?? "",
    name: obj.metadata.name,
  };
}

/** "DNSZone/root" or "Policy/default/default": how keys appear in messages. */
export function formatKey(key: ObjectKey): string {
  return key.namespace
    ? `${key.kind}/${key.namespace}/${key.name}`
    : `${key.kind}/${key.name}`;
}
