/**
 * DNSRecordSet (namespaced): records an app team adds to a zone, in the
 * external-dns Endpoint shape plus a kudurru extension block
 * (docs/design.md#objects-and-ownership).
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import { checkRdata, RECORD_TYPES, typeCode } from "../../dns/rdata_text.ts";
import { typeName } from "../../dns/wire/constants.ts";
import {
  basicStatusSchema,
  domainNameSchema,
  kindObjectSchema,
  MAX_TTL,
  objectNameSchema,
} from "./field_schemas.ts";

/**
 * Most endpoints one object may hold (keeps a CRD object under the apiserver's
 * size limit).
 */
export const MAX_ENDPOINTS = 1000;

/** Longest target, in characters. */
export const MAX_TARGET_CHARS = 65535;

/** Types that own their name alone and so take exactly one target. */
const SINGLE_TARGET_TYPES: readonly string[] = ["CNAME", "DNAME"];

/** True for a type kudurru knows by name or an RFC 3597 "TYPEnnn". */
export function isRecordType(type: string): boolean {
  return typeCode(type) !== undefined;
}

export const zoneRefSchema = z.strictObject({ name: objectNameSchema() });

export const endpointExtensionSchema = z.strictObject({
  comment: z.string().max(1024).optional(),
  disabled: z.boolean().optional(),
  /** The record stops being served at this instant (Technitium's expiry TTL). */
  expiresAt: z.iso.datetime({
    offset: true,
    error: 'must be an RFC 3339 time such as "2030-01-02T15:04:05Z"',
  }).optional(),
  /** "public" or a ClientGroup name; honoured from a later version on. */
  view: z.string().max(253).optional(),
});

export const endpointSchema = z.strictObject({
  dnsName: domainNameSchema({ allowWildcard: true }),
  recordType: z.string().max(16).refine(isRecordType, {
    message: `must be one of ${RECORD_TYPES.join(", ")} or TYPEnnn (RFC 3597)`,
  }),
  /** Presentation-format rdata, one record each. */
  targets: z.array(z.string().max(MAX_TARGET_CHARS)).min(1).max(1000),
  recordTTL: z.number().int().min(0).max(MAX_TTL).optional(),
  setIdentifier: z.string().max(253).optional(),
  labels: z.record(z.string().max(317), z.string().max(63)).optional(),
  providerSpecific: z.array(z.strictObject({
    name: z.string().max(253),
    value: z.string().max(4096),
  })).max(64).optional(),
  kudurru: endpointExtensionSchema.optional(),
}).superRefine((endpoint, ctx) => {
  if (!isRecordType(endpoint.recordType)) return;
  for (
    const issue of endpointTargetIssues(
      endpoint.recordType,
      endpoint.targets,
    )
  ) {
    ctx.addIssue({ code: "custom", ...issue });
  }
});

/**
 * What the endpoint schema finds wrong in the `targets` of a known type,
 * beyond their shape: a target that is not the type's rdata, or more than
 * one for a type that owns its name alone. An import that builds a
 * million endpoints from records its parser has checked already asks only
 * this (the whole schema, per endpoint, cost most of the import: see
 * bench/import).
 */
export function endpointTargetIssues(
  type: string,
  targets: readonly string[],
): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  targets.forEach((target, index) => {
    const problem = checkRdata(type, target);
    if (problem !== null) {
      issues.push({ path: ["targets", index], message: problem });
    }
  });
  // By code: TYPE5 is a CNAME too (RFC 3597 §5).
  const mnemonic = typeName(typeCode(type)!);
  if (SINGLE_TARGET_TYPES.includes(mnemonic) && targets.length !== 1) {
    issues.push({
      path: ["targets"],
      message:
        `must hold exactly one target for a ${mnemonic} record, got ${targets.length}`,
    });
  }
  return issues;
}

export const dnsRecordSetSpecSchema = z.strictObject({
  zoneRef: zoneRefSchema,
  endpoints: z.array(endpointSchema).min(1).max(MAX_ENDPOINTS),
});

export const dnsRecordSetStatusSchema = basicStatusSchema;

export const dnsRecordSetSchema = kindObjectSchema(
  "DNSRecordSet",
  dnsRecordSetSpecSchema,
  dnsRecordSetStatusSchema,
);

export type Endpoint = z.output<typeof endpointSchema>;
export type DNSRecordSetSpec = z.output<typeof dnsRecordSetSpecSchema>;
export type DNSRecordSetStatus = z.output<typeof dnsRecordSetStatusSchema>;
/**
 * A DNSRecordSet after validation. Typed through KObject (not z.output) so it stays
 * assignable to the Store's KObject under exactOptionalPropertyTypes.
 */
export type DNSRecordSet = KObject<DNSRecordSetSpec, DNSRecordSetStatus> & {
  kind: "DNSRecordSet";
};
