/**
 * The registry of kinds: names as the API, CLI and CRDs spell them, scope,
 * schemas and the fields that may not change after creation.
 */
import type { z } from "zod";
import {
  apiTokenSchema,
  apiTokenSpecSchema,
  apiTokenStatusSchema,
  roleBindingSchema,
  serviceAccountSchema,
  serviceAccountSpecSchema,
  settingsSchema,
  settingsSpecSchema,
  userSchema,
  userSpecSchema,
} from "./auth_kinds.ts";
import { basicStatusSchema } from "./field_schemas.ts";
import { bindingSchema } from "../../config/schema_auth.ts";
import {
  dnsZoneSchema,
  dnsZoneSpecSchema,
  dnsZoneStatusSchema,
} from "./dnszone.ts";
import {
  dnsRecordSetSchema,
  dnsRecordSetSpecSchema,
  dnsRecordSetStatusSchema,
} from "./dnsrecordset.ts";
import {
  blockListSchema,
  blockListSpecSchema,
  blockListStatusSchema,
} from "./blocklist.ts";
import {
  clientGroupSchema,
  clientGroupSpecSchema,
  clientGroupStatusSchema,
} from "./clientgroup.ts";
import {
  policySchema,
  policySpecSchema,
  policyStatusSchema,
} from "./policy.ts";

/** A field that may not change once the object exists. */
export interface ImmutableField {
  /** Path from the object root, e.g. ["spec", "zoneName"]. */
  path: readonly string[];
  /** What the API and the CRD's CEL rule say when it changes. */
  message: string;
}

/** Everything the API, CLI, Store and CRD generator need to know about a kind. */
export interface KindInfo {
  kind: string;
  /** Lowercase plural: the CRD resource and the API path segment. */
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  objectSchema: z.ZodType;
  specSchema: z.ZodType;
  statusSchema: z.ZodType;
  immutableFields: readonly ImmutableField[];
}

/** Every kind of this API version, in the order docs and CLI list them. */
export const KINDS: readonly KindInfo[] = [
  {
    kind: "DNSZone",
    plural: "dnszones",
    singular: "dnszone",
    shortNames: ["zone", "zones"],
    namespaced: false,
    objectSchema: dnsZoneSchema,
    specSchema: dnsZoneSpecSchema,
    statusSchema: dnsZoneStatusSchema,
    immutableFields: [{
      path: ["spec", "zoneName"],
      message: "zoneName is immutable",
    }],
  },
  {
    kind: "DNSRecordSet",
    plural: "dnsrecordsets",
    singular: "dnsrecordset",
    shortNames: ["rrset", "rrsets", "recordset", "recordsets"],
    namespaced: true,
    objectSchema: dnsRecordSetSchema,
    specSchema: dnsRecordSetSpecSchema,
    statusSchema: dnsRecordSetStatusSchema,
    immutableFields: [{
      path: ["spec", "zoneRef"],
      message: "zoneRef is immutable",
    }],
  },
  {
    kind: "BlockList",
    plural: "blocklists",
    singular: "blocklist",
    shortNames: ["list", "lists"],
    namespaced: true,
    objectSchema: blockListSchema,
    specSchema: blockListSpecSchema,
    statusSchema: blockListStatusSchema,
    immutableFields: [],
  },
  {
    kind: "ClientGroup",
    plural: "clientgroups",
    singular: "clientgroup",
    shortNames: ["group", "groups"],
    namespaced: true,
    objectSchema: clientGroupSchema,
    specSchema: clientGroupSpecSchema,
    statusSchema: clientGroupStatusSchema,
    immutableFields: [],
  },
  {
    kind: "Policy",
    plural: "policies",
    singular: "policy",
    shortNames: ["pol"],
    namespaced: true,
    objectSchema: policySchema,
    specSchema: policySpecSchema,
    statusSchema: policyStatusSchema,
    immutableFields: [],
  },
];

/**
 * The internal kinds (auth_kinds.ts): stored and validated like the others,
 * written by the API alone. Files, `kudurru apply -f`, `kudurru get`, the
 * CRDs and `export --safe` know only KINDS.
 */
export const INTERNAL_KINDS: readonly KindInfo[] = [
  internal("User", "users", "user", userSchema, userSpecSchema, false),
  internal(
    "ServiceAccount",
    "serviceaccounts",
    "serviceaccount",
    serviceAccountSchema,
    serviceAccountSpecSchema,
    false,
  ),
  internal(
    "APIToken",
    "tokens",
    "token",
    apiTokenSchema,
    apiTokenSpecSchema,
    false,
    apiTokenStatusSchema,
  ),
  internal(
    "RoleBinding",
    "rolebindings",
    "rolebinding",
    roleBindingSchema,
    bindingSchema,
    false,
  ),
  internal(
    "Settings",
    "settings",
    "settings",
    settingsSchema,
    settingsSpecSchema,
    false,
  ),
];

function internal(
  kind: string,
  plural: string,
  singular: string,
  objectSchema: z.ZodType,
  specSchema: z.ZodType,
  namespaced: boolean,
  statusSchema: z.ZodType = basicStatusSchema,
): KindInfo {
  return {
    kind,
    plural,
    singular,
    shortNames: [],
    namespaced,
    objectSchema,
    specSchema,
    statusSchema,
    immutableFields: [],
  };
}

/** The kind of either registry: what the Store validates. */
export function kindInfo(kind: unknown): KindInfo | undefined {
  return KINDS.find((k) => k.kind === kind) ??
    INTERNAL_KINDS.find((k) => k.kind === kind);
}

/**
 * The kind a word names, case-insensitively: the kind itself ("DNSZone"),
 * its plural, singular or a short name ("zone", "rrset", "policies").
 */
export function findKind(word: string): KindInfo | undefined {
  const w = word.toLowerCase();
  return KINDS.find((k) =>
    k.kind.toLowerCase() === w || k.plural === w || k.singular === w ||
    k.shortNames.includes(w)
  );
}
