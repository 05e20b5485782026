/**
 * Policy (namespaced): what a ClientGroup's queries get (block lists, allow
 * lists, schedule, upstream, answer for blocked names); docs/blocking.md.
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import { durationSchema } from "../../config/duration.ts";
import { BLOCK_MODES } from "./blocklist.ts";
import {
  basicStatusSchema,
  ipAddressSchema,
  kindObjectSchema,
  objectNameSchema,
} from "./field_schemas.ts";

export const WEEKDAYS = [
  "mon",
  "tue",
  "wed",
  "thu",
  "fri",
  "sat",
  "sun",
] as const;

/** True when the runtime's ICU knows the IANA time zone. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const clockTimeSchema = () =>
  z.string().regex(
    /^([01][0-9]|2[0-3]):[0-5][0-9]$/,
    'must be a time of day "HH:MM" such as "08:00"',
  );

/** When the policy applies; outside it the next matching policy does. */
export const scheduleSchema = z.strictObject({
  weekdays: z.array(z.enum(WEEKDAYS)).min(1).max(7).optional(),
  start: clockTimeSchema(),
  /** An end earlier than start wraps past midnight. */
  end: clockTimeSchema(),
  tz: z.string().max(64).refine(isTimeZone, {
    message: 'must be an IANA time zone such as "Europe/Berlin" or "UTC"',
  }).optional(),
});

const refListSchema = () => z.array(objectNameSchema()).max(100);
const serviceListSchema = () => z.array(z.string().max(128)).max(1000);

export const policySpecSchema = z.strictObject({
  clientGroupRefs: refListSchema().optional(),
  blockListRefs: refListSchema().optional(),
  allowListRefs: refListSchema().optional(),
  /** Answer only names on the allow lists; everything else is blocked. */
  allowOnly: z.boolean().default(false),
  schedule: scheduleSchema.optional(),
  upstreamGroup: objectNameSchema().optional(),
  /** Unset means the server's blocking.blockMode. */
  blockMode: z.enum(BLOCK_MODES).optional(),
  customIPs: z.array(ipAddressSchema()).max(16).optional(),
  blockTTL: durationSchema().optional(),
  queryLog: z.boolean().optional(),
  /** Higher wins when several policies match a client. */
  priority: z.number().int().min(-1000000).max(1000000).default(0),
  blockedServices: serviceListSchema().optional(),
  blockedCategories: serviceListSchema().optional(),
  allowedServices: serviceListSchema().optional(),
  safeSearch: z.boolean().optional(),
}).superRefine((spec, ctx) => {
  if (spec.blockMode === "customIP" && !spec.customIPs?.length) {
    ctx.addIssue({
      code: "custom",
      path: ["customIPs"],
      message: "must not be empty when blockMode is customIP",
    });
  }
});

export const policyStatusSchema = basicStatusSchema;

export const policySchema = kindObjectSchema(
  "Policy",
  policySpecSchema,
  policyStatusSchema,
);

export type Schedule = z.output<typeof scheduleSchema>;
export type PolicySpec = z.output<typeof policySpecSchema>;
export type PolicyStatus = z.output<typeof policyStatusSchema>;
/**
 * A Policy after validation. Typed through KObject (not z.output) so it stays
 * assignable to the Store's KObject under exactOptionalPropertyTypes.
 */
export type Policy = KObject<PolicySpec, PolicyStatus> & { kind: "Policy" };
