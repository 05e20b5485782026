/**
 * Field schemas the kinds share: object references, addresses, domain names
 * and the status fields every kind carries. Each check's message says what
 * the field must be, so validate.ts can print it after the field's path.
 */
import { z } from "zod";
import { checkDomainName } from "../../dns/name.ts";
import { isCidr, isHostPort, isIpAddress } from "../../dns/ip_text.ts";
import {
  API_VERSION,
  conditionSchema,
  NAMESPACE_RE,
  OBJECT_NAME_RE,
  objectMetaSchema,
} from "./meta.ts";

/** Largest TTL a record may carry (RFC 2181 §8: 2^31 - 1). */
export const MAX_TTL = 2147483647;

/** The name of another object, a DNS-1123 subdomain like metadata.name. */
export function objectNameSchema() {
  return z.string().max(253).regex(
    OBJECT_NAME_RE,
    "must be a lowercase DNS-1123 subdomain (a-z, 0-9, '-', '.')",
  );
}

/** A namespace name, a DNS-1123 label. */
export function namespaceNameSchema() {
  return z.string().max(63).regex(
    NAMESPACE_RE,
    "must be a lowercase DNS-1123 label",
  );
}

/** A domain name in presentation format; see checkDomainName for the rules. */
export function domainNameSchema(
  opts: { requireTrailingDot?: boolean; allowWildcard?: boolean } = {},
) {
  return z.string().max(1024).superRefine((name, ctx) => {
    const problem = checkDomainName(name, opts);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });
}

/** A fully qualified domain name: the trailing dot is required. */
export function fqdnSchema() {
  return domainNameSchema({ requireTrailingDot: true });
}

/** An IP address such as "10.0.0.1" or "fd00::1". */
export function ipAddressSchema() {
  return z.string().max(64).refine(isIpAddress, {
    message: 'must be an IP address such as "10.0.0.1" or "fd00::1"',
  });
}

/** A network in CIDR notation such as "10.0.0.0/8". */
export function cidrSchema() {
  return z.string().max(64).refine(isCidr, {
    message: 'must be a network in CIDR notation such as "10.0.0.0/8"',
  });
}

/** An ACL entry: an IP or CIDR, optionally negated with a leading "!". */
export function aclEntrySchema() {
  return z.string().max(65).refine(
    (text) => {
      const body = text.startsWith("!") ? text.slice(1) : text;
      return isIpAddress(body) || isCidr(body);
    },
    {
      message:
        'must be an IP address or CIDR, optionally prefixed with "!" (e.g. "10.0.0.0/8", "!10.0.0.2")',
    },
  );
}

/** An IP address with an optional port: "192.0.2.1:5353", "[2001:db8::1]:53". */
export function hostPortSchema() {
  return z.string().max(64).refine(isHostPort, {
    message:
      'must be an IP address with an optional port such as "192.0.2.1", "192.0.2.1:5353" or "[2001:db8::1]:53"',
  });
}

/** metadata.generation the status was computed from. */
export function observedGenerationSchema() {
  return z.number().int().min(0);
}

/** The conditions list every status carries (Ready, Degraded, …). */
export function conditionsSchema() {
  return z.array(conditionSchema).max(32);
}

/** The status every kind without extra status fields uses. */
export const basicStatusSchema = z.strictObject({
  observedGeneration: observedGenerationSchema().optional(),
  conditions: conditionsSchema().optional(),
});
export type BasicStatus = z.output<typeof basicStatusSchema>;

/** Adds one issue per field that should be set exactly once. */
export function requireExactlyOne(
  value: Record<string, unknown>,
  fields: readonly string[],
  ctx: z.RefinementCtx,
): void {
  const set = fields.filter((f) => value[f] !== undefined);
  if (set.length === 1) return;
  ctx.addIssue({
    code: "custom",
    message: set.length === 0
      ? `must set exactly one of ${fields.join(", ")}`
      : `must set exactly one of ${fields.join(", ")}, got ${
        set.join(" and ")
      }`,
  });
}

/** The envelope of one kind: apiVersion, kind, metadata, spec, status. */
export function kindObjectSchema<
  K extends string,
  Spec extends z.ZodType,
  Status extends z.ZodType,
>(kind: K, spec: Spec, status: Status) {
  return z.strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(kind),
    metadata: objectMetaSchema,
    spec,
    status: status.optional(),
  });
}
