/**
 * BlockList (namespaced): block or allow rules from URLs, inline text or
 * ConfigMaps (blocky's "group list"; docs/blocking.md).
 */
import { z } from "zod";
import type { KObject } from "./meta.ts";
import { durationSchema } from "../../config/duration.ts";
import {
  conditionsSchema,
  ipAddressSchema,
  kindObjectSchema,
  objectNameSchema,
  observedGenerationSchema,
  requireExactlyOne,
} from "./field_schemas.ts";

/** How a blocked name is answered. */
export const BLOCK_MODES = [
  "zeroIP",
  "nxdomain",
  "customIP",
  "refused",
] as const;
export type BlockMode = (typeof BLOCK_MODES)[number];

/** List syntaxes the parser understands; auto sniffs each source. */
export const LIST_FORMATS = [
  "auto",
  "hosts",
  "domains",
  "adblock",
  "regex",
] as const;

const SOURCE_ORIGINS = ["url", "inline", "configMapRef"] as const;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") &&
      url.hostname !== "";
  } catch {
    return false;
  }
}

export const listSourceSchema = z.strictObject({
  url: z.string().max(2048).refine(isHttpUrl, {
    message: 'must be an http or https URL such as "https://big.oisd.nl/"',
  }).optional(),
  /** Rules written into the object, one per line. */
  inline: z.string().max(1_000_000).optional(),
  configMapRef: z.strictObject({
    name: objectNameSchema(),
    key: z.string().max(253),
  }).optional(),
  format: z.enum(LIST_FORMATS).default("auto"),
  enabled: z.boolean().default(true),
  /**
   * A label for the source in the BlockList's status and the fetcher's log
   * lines, instead of its URL. (The query log names the BlockList and the
   * rule that matched, not the source.)
   */
  name: z.string().max(253).optional(),
}).superRefine((source, ctx) => requireExactlyOne(source, SOURCE_ORIGINS, ctx));

/** Answers for blocked names, overriding the Policy's blockMode. */
export const blockResponseSchema = z.strictObject({
  mode: z.enum(BLOCK_MODES),
  customIPs: z.array(ipAddressSchema()).max(16).optional(),
}).superRefine((response, ctx) => {
  if (response.mode === "customIP" && !response.customIPs?.length) {
    ctx.addIssue({
      code: "custom",
      path: ["customIPs"],
      message: "must not be empty when mode is customIP",
    });
  }
});

export const blockListSpecSchema = z.strictObject({
  mode: z.enum(["block", "allow"]).default("block"),
  sources: z.array(listSourceSchema).min(1).max(100),
  /** Unset: the server's `blocking.refreshInterval` (24h by default). */
  refreshInterval: durationSchema({ min: 60_000 }).optional(),
  response: blockResponseSchema.optional(),
});

export const listSourceStatusSchema = z.strictObject({
  url: z.string().optional(),
  name: z.string().optional(),
  etag: z.string().optional(),
  /** sha256 of the fetched body; replicas fetch lists from the leader by it. */
  digest: z.string().optional(),
  ruleCount: z.number().int().min(0).optional(),
  /** Lines that are not rules of the source's format. */
  invalid: z.number().int().min(0).optional(),
  /** Rules that parse but this version does not apply (ignored). */
  unsupported: z.number().int().min(0).optional(),
  /** Up to 5 invalid or unsupported lines: "line 12: <text>: <why>". */
  examples: z.array(z.string().max(512)).max(5).optional(),
  /** The list's "! Title:" line, when it has one. */
  title: z.string().optional(),
  /** The Last-Modified header of the fetched body, sent back as If-Modified-Since. */
  lastModified: z.string().optional(),
  /** When the body was last downloaded or confirmed unchanged (HTTP 304). */
  lastFetched: z.string().optional(),
  /** Why the last fetch failed; the last good body, if any, is still served. */
  error: z.string().optional(),
});

export const blockListStatusSchema = z.strictObject({
  sources: z.array(listSourceStatusSchema).max(100).optional(),
  observedGeneration: observedGenerationSchema().optional(),
  conditions: conditionsSchema().optional(),
});

export const blockListSchema = kindObjectSchema(
  "BlockList",
  blockListSpecSchema,
  blockListStatusSchema,
);

export type ListSource = z.output<typeof listSourceSchema>;
export type BlockListSpec = z.output<typeof blockListSpecSchema>;
export type BlockListStatus = z.output<typeof blockListStatusSchema>;
/**
 * A BlockList after validation. Typed through KObject (not z.output) so it stays
 * assignable to the Store's KObject under exactOptionalPropertyTypes.
 */
export type BlockList = KObject<BlockListSpec, BlockListStatus> & {
  kind: "BlockList";
};
