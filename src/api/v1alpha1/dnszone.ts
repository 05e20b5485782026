/**
 * DNSZone (cluster-scoped): one zone kudurru serves, its SOA, nameservers and
 * access policy. The policy vocabulary is Technitium's six-way one.
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import {
  aclEntrySchema,
  conditionsSchema,
  fqdnSchema,
  hostPortSchema,
  ipAddressSchema,
  kindObjectSchema,
  MAX_TTL,
  namespaceNameSchema,
  objectNameSchema,
  observedGenerationSchema,
} from "./field_schemas.ts";

/** Zone types served in this version. */
export const ZONE_TYPES = ["primary", "forward", "secondary"] as const;
/** Zone types planned for later versions; named so the error can say so. */
export const LATER_ZONE_TYPES = [
  "stub",
  "external",
  "catalog",
  "secondaryCatalog",
] as const;

/** Who may query, transfer or update a zone. */
export const ACCESS_MODES = [
  "deny",
  "allow",
  "allowOnlyPrivate",
  "allowOnlyZoneNameServers",
  "useNetworkACL",
  "zoneNameServersAndACL",
] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];

/** Whom the primary NOTIFYs after a serial change. */
export const NOTIFY_MODES = [
  "none",
  "zoneNameServers",
  "specified",
  "both",
] as const;

const zoneTypeSchema = z.enum(ZONE_TYPES, {
  error: (issue) =>
    (LATER_ZONE_TYPES as readonly unknown[]).includes(issue.input)
      ? `zone type "${
        String(issue.input)
      }" arrives in a later version of kudurru; this version serves ${
        ZONE_TYPES.slice(0, -1).join(", ")
      } and ${ZONE_TYPES.at(-1)} zones`
      : `must be one of: ${ZONE_TYPES.join(", ")}`,
});

const DAY = 86400;

export const soaSpecSchema = z.strictObject({
  mname: fqdnSchema(),
  rname: fqdnSchema(),
  refresh: z.number().int().min(60).max(28 * DAY).default(3600),
  retry: z.number().int().min(60).max(28 * DAY).default(900),
  expire: z.number().int().min(3600).max(365 * DAY).default(1209600),
  /** Negative-caching TTL (RFC 2308); resolvers cap it at a day or less anyway. */
  minimum: z.number().int().min(0).max(DAY).default(300),
});

const updatePolicySchema = z.strictObject({
  tsigKeyRef: objectNameSchema(),
  name: z.string().max(1024).optional(),
  types: z.array(z.string().max(16)).max(64).optional(),
});

const accessModeSchema = z.enum(ACCESS_MODES);
const aclSchema = () => z.array(aclEntrySchema()).max(1000);

export const zonePolicySchema = z.strictObject({
  queryAccess: accessModeSchema.default("allow"),
  /** Ordered; first match wins; no match denies. */
  queryACL: aclSchema().optional(),
  zoneTransfer: accessModeSchema.default("deny"),
  transferACL: aclSchema().optional(),
  transferTSIGKeyRefs: z.array(objectNameSchema()).max(16).optional(),
  notify: z.enum(NOTIFY_MODES).default("none"),
  notifyTargets: z.array(hostPortSchema()).max(64).optional(),
  /** RFC 2136 updates arrive in a later version; the field keeps its seam. */
  update: accessModeSchema.default("deny"),
  /** Reserved for RFC 2136 (a later version); accepted and not yet used. */
  updatePolicies: z.array(updatePolicySchema).max(100).optional(),
});

export const forwardSpecSchema = z.strictObject({
  upstreamGroup: objectNameSchema(),
  dnssecValidation: z.boolean().default(false),
});

/** Where a secondary zone is transferred from (RFC 5936, RFC 1995). */
export const secondarySpecSchema = z.strictObject({
  /** Tried in order at each refresh; NOTIFY is taken from these only. */
  primaries: z.array(hostPortSchema()).min(1).max(16),
  /** The TSIG key (`<dataDir>/keys/tsig/<ref>.key`) transfers are signed with. */
  tsigKeyRef: objectNameSchema().optional(),
  /** DNS over TCP; XFR over TLS (RFC 9103) is planned. */
  transferProtocol: z.enum(["tcp"]).default("tcp"),
});

export const recordSetSelectorSchema = z.strictObject({
  namespaces: z.array(namespaceNameSchema()).max(256).optional(),
  labelSelector: z.strictObject({
    matchLabels: z.record(z.string().max(317), z.string().max(63)).optional(),
  }).optional(),
});

const ACL_MODES: readonly AccessMode[] = [
  "useNetworkACL",
  "zoneNameServersAndACL",
];

export const dnsZoneSpecSchema = z.strictObject({
  zoneName: fqdnSchema().max(254),
  type: zoneTypeSchema,
  soa: soaSpecSchema.optional(),
  nameservers: z.array(fqdnSchema()).max(64).optional(),
  defaultTTL: z.number().int().min(0).max(MAX_TTL).default(300),
  policy: zonePolicySchema.prefault({}),
  forward: forwardSpecSchema.optional(),
  secondary: secondarySpecSchema.optional(),
  recordSetSelector: recordSetSelectorSchema.optional(),
}).superRefine((spec, ctx) => {
  if (spec.type === "forward" && spec.forward === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["forward"],
      message: "is required when type is forward (set forward.upstreamGroup)",
    });
  }
  if (spec.type !== "forward" && spec.forward !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["forward"],
      message: `must not be set when type is ${spec.type}`,
    });
  }
  if (spec.type === "secondary" && spec.secondary === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["secondary"],
      message:
        "is required when type is secondary (set secondary.primaries to the addresses to transfer from)",
    });
  }
  if (spec.type !== "secondary" && spec.secondary !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["secondary"],
      message: `must not be set when type is ${spec.type}`,
    });
  }
  const p = spec.policy;
  if (ACL_MODES.includes(p.queryAccess) && !p.queryACL?.length) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "queryACL"],
      message: `must not be empty when queryAccess is ${p.queryAccess}`,
    });
  }
  if (ACL_MODES.includes(p.zoneTransfer) && !p.transferACL?.length) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "transferACL"],
      message: `must not be empty when zoneTransfer is ${p.zoneTransfer}`,
    });
  }
  if (
    (p.notify === "specified" || p.notify === "both") &&
    !p.notifyTargets?.length
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "notifyTargets"],
      message: `must not be empty when notify is ${p.notify}`,
    });
  }
});

export const dnsZoneStatusSchema = z.strictObject({
  observedGeneration: observedGenerationSchema().optional(),
  /** Stamped by the leader: max(prev + 1, unix_now). */
  serial: z.number().int().min(0).max(4294967295).optional(),
  /** sha256 of the canonical RRsets. */
  contentHash: z.string().max(128).optional(),
  recordCount: z.number().int().min(0).optional(),
  nameserverAddresses: z.array(ipAddressSchema()).max(64).optional(),
  /** A secondary zone: when its copy last came from a primary (ISO 8601). */
  lastTransfer: z.string().max(64).optional(),
  /** A secondary zone: when a primary last confirmed the copy is current. */
  lastRefresh: z.string().max(64).optional(),
  conditions: conditionsSchema().optional(),
});

export const dnsZoneSchema = kindObjectSchema(
  "DNSZone",
  dnsZoneSpecSchema,
  dnsZoneStatusSchema,
);

export type DNSZoneSpec = z.output<typeof dnsZoneSpecSchema>;
export type DNSZoneStatus = z.output<typeof dnsZoneStatusSchema>;
/**
 * A DNSZone after validation. Typed through KObject (not z.output) so it stays
 * assignable to the Store's KObject under exactOptionalPropertyTypes.
 */
export type DNSZone = KObject<DNSZoneSpec, DNSZoneStatus> & { kind: "DNSZone" };
export type ZonePolicy = z.output<typeof zonePolicySchema>;
export type SOASpec = z.output<typeof soaSpecSchema>;
