/**
 * The internal kinds of accounts and access: User (local login),
 * ServiceAccount (owns tokens, never logs in), APIToken (a hashed secret and
 * its scopes) and RoleBinding (roles given through the API, beside
 * `rbac.bindings` in the configuration); and Settings, the cluster settings
 * changed through the API. Stored like every kind, but only
 * the API writes them: files and `kudurru apply -f` do not know them, no CRD
 * is made for them, and `kudurru export --safe` leaves them out.
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import { basicStatusSchema, kindObjectSchema } from "./field_schemas.ts";
import { bindingSchema } from "../../config/schema_auth.ts";

const timestamp = z.iso.datetime({ offset: true });

export const userSpecSchema = z.strictObject({
  displayName: z.string().max(200).optional(),
  /** Argon2id in PHC form; absent for users of an identity provider. */
  passwordHash: z.string().max(512).optional(),
  /** Set for the generated first admin: every call but a password change is refused. */
  mustChangePassword: z.boolean().default(false),
  disabled: z.boolean().default(false),
  /** Sessions issued before this are over (password change, log out everywhere). */
  sessionsValidAfter: timestamp.optional(),
  totp: z.strictObject({
    /** The TOTP secret, sealed with the encryption key. */
    sealedSecret: z.string().max(512),
    /** Once a login confirmed a code: then logins need one. */
    enabled: z.boolean().default(false),
    /** The last time step a code was accepted for (one use per code). */
    lastStep: z.number().int().nonnegative().default(0),
  }).optional(),
});

export const userSchema = kindObjectSchema(
  "User",
  userSpecSchema,
  basicStatusSchema,
);

export const serviceAccountSpecSchema = z.strictObject({
  description: z.string().max(1000).default(""),
  disabled: z.boolean().default(false),
});

export const serviceAccountSchema = kindObjectSchema(
  "ServiceAccount",
  serviceAccountSpecSchema,
  basicStatusSchema,
);

export const tokenScopeSchema = z.strictObject({
  role: z.string().min(1).max(64),
  scope: z.strictObject({
    kind: z.enum(["cluster", "zone"]),
    name: z.string().max(253).optional(),
  }).optional(),
});

export const apiTokenSpecSchema = z.strictObject({
  owner: z.strictObject({
    kind: z.enum(["User", "ServiceAccount"]),
    name: z.string().min(1).max(253),
  }),
  description: z.string().max(1000).default(""),
  /** What the token may do, within what its owner may (an empty list: all of it). */
  scopes: z.array(tokenScopeSchema).max(32).default([]),
  expiresAt: timestamp.optional(),
  /** SHA-256 of the secret, hex: the secret itself is never stored. */
  secretHash: z.string().regex(/^[0-9a-f]{64}$/),
});

export const apiTokenStatusSchema = z.strictObject({
  observedGeneration: z.number().int().min(0).optional(),
  lastUsedAt: timestamp.optional(),
  lastUsedFrom: z.string().max(64).optional(),
});

export const apiTokenSchema = kindObjectSchema(
  "APIToken",
  apiTokenSpecSchema,
  apiTokenStatusSchema,
);

export const roleBindingSchema = kindObjectSchema(
  "RoleBinding",
  bindingSchema,
  basicStatusSchema,
);

/**
 * The cluster settings changed through the API (`PATCH /api/v1/settings`):
 * one object named "cluster" whose `overrides` are kudurru.yaml-shaped
 * (durations and sizes as text) and are merged over the file at start
 * and at every change; the environment still wins.
 */
export const settingsSpecSchema = z.strictObject({
  overrides: z.record(z.string(), z.unknown()).default({}),
});

export const settingsSchema = kindObjectSchema(
  "Settings",
  settingsSpecSchema,
  basicStatusSchema,
);

export type UserSpec = z.output<typeof userSpecSchema>;
export type User = KObject<UserSpec> & { kind: "User" };
export type ServiceAccountSpec = z.output<typeof serviceAccountSpecSchema>;
export type ServiceAccount = KObject<ServiceAccountSpec> & {
  kind: "ServiceAccount";
};
export type TokenScope = z.output<typeof tokenScopeSchema>;
export type APITokenSpec = z.output<typeof apiTokenSpecSchema>;
export type APITokenStatus = z.output<typeof apiTokenStatusSchema>;
export type APIToken = KObject<APITokenSpec, APITokenStatus> & {
  kind: "APIToken";
};
export type SettingsSpec = z.output<typeof settingsSpecSchema>;
export type Settings = KObject<SettingsSpec> & { kind: "Settings" };
export type RoleBindingSpec = z.output<typeof bindingSchema>;
export type RoleBinding = KObject<RoleBindingSpec> & { kind: "RoleBinding" };
