/**
 * ClientGroup (namespaced): who is asking, by address, network, MAC,
 * DoT/DoH client ID or name (docs/blocking.md).
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import {
  basicStatusSchema,
  cidrSchema,
  ipAddressSchema,
  kindObjectSchema,
  requireExactlyOne,
} from "./field_schemas.ts";

/** Most clients one group may list. */
export const MAX_CLIENTS = 1000;

const CLIENT_MATCHERS = [
  "ip",
  "cidr",
  "mac",
  "clientID",
  "hostname",
  "nameGlob",
] as const;

const MAC_RE = /^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$/;
/**
 * A DoT/DoH/DoQ client ID: one DNS label, lower case (AdGuard's ClientID
 * alphabet: what fits in a DoT SNI or DoH path label).
 */
export const CLIENT_ID_RE = /^[a-z0-9]([a-z0-9-]{0,62})$/;
/** Host names as learned from DHCP/PTR, with glob characters allowed. */
const HOSTNAME_GLOB_RE = /^[A-Za-z0-9*?_.\-[\]]+$/;

export const clientSchema = z.strictObject({
  ip: ipAddressSchema().optional(),
  cidr: cidrSchema().optional(),
  mac: z.string().regex(
    MAC_RE,
    'must be a MAC address such as "aa:bb:cc:dd:ee:ff"',
  )
    .optional(),
  clientID: z.string().regex(
    CLIENT_ID_RE,
    "must be 1-63 lowercase letters, digits or '-'",
  ).optional(),
  hostname: z.string().max(253).regex(
    HOSTNAME_GLOB_RE,
    "must be a host name, optionally with * or ? wildcards",
  ).optional(),
  /** Glob over the client's display name (from integrations or the dashboard). */
  nameGlob: z.string().min(1).max(253).optional(),
  name: z.string().max(253).optional(),
  comment: z.string().max(1024).optional(),
}).superRefine((client, ctx) =>
  requireExactlyOne(client, CLIENT_MATCHERS, ctx)
);

export const clientGroupSpecSchema = z.strictObject({
  clients: z.array(clientSchema).max(MAX_CLIENTS).default([]),
});

export const clientGroupStatusSchema = basicStatusSchema;

export const clientGroupSchema = kindObjectSchema(
  "ClientGroup",
  clientGroupSpecSchema,
  clientGroupStatusSchema,
);

export type Client = z.output<typeof clientSchema>;
export type ClientGroupSpec = z.output<typeof clientGroupSpecSchema>;
export type ClientGroupStatus = z.output<typeof clientGroupStatusSchema>;
/**
 * A ClientGroup after validation. Typed through KObject (not z.output) so it stays
 * assignable to the Store's KObject under exactOptionalPropertyTypes.
 */
export type ClientGroup = KObject<ClientGroupSpec, ClientGroupStatus> & {
  kind: "ClientGroup";
};
