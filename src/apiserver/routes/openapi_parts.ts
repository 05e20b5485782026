/**
 * Pieces of the OpenAPI description several routes share: the error body,
 * the list query, the object envelope, and success answers.
 */
import { z } from "@hono/zod-openapi";
import type { KindInfo } from "../../api/v1alpha1/kinds.ts";
import { ERROR_KEYS } from "../errors.ts";

/** `{error: {key, message, hint?, …}, took_ms}`. */
export const errorBody = z.object({
  error: z.object({
    key: z.enum(Object.keys(ERROR_KEYS) as [string, ...string[]]),
    message: z.string(),
    hint: z.string().optional(),
  }).passthrough(),
  took_ms: z.number(),
});

const errorContent = { "application/json": { schema: errorBody } };

/** The errors any authenticated route may answer. */
export const errorResponses = {
  400: { description: "Malformed request", content: errorContent },
  401: { description: "Not authenticated", content: errorContent },
  403: {
    description: "Not allowed; `missing` says which permission",
    content: errorContent,
  },
  404: { description: "No such object", content: errorContent },
  409: {
    description: "Conflict, another manager owns it, or read-only",
    content: errorContent,
  },
  413: { description: "Body too large", content: errorContent },
  422: {
    description: "Invalid body; `issues` name the fields",
    content: errorContent,
  },
  503: {
    description: "Storage unavailable; nothing changed",
    content: errorContent,
  },
} as const;

/** `limit`, `continue` and `labelSelector` of a list. */
export const listQuery = z.object({
  limit: z.string().optional().openapi({ description: "Page size, 1 to 1000" }),
  continue: z.string().optional().openapi({
    description: "The `continue` of the previous page",
  }),
  labelSelector: z.string().optional().openapi({
    description: "Kubernetes label selector, such as `app=web,tier!=db`",
  }),
});

/** `{data: <object>, took_ms}`. */
export function objectEnvelope(info: KindInfo) {
  return z.object({
    data: info.objectSchema as z.ZodType,
    took_ms: z.number(),
  });
}

/** The content of a success answer: `{data: <schema>, took_ms}` as JSON. */
export function dataContent(data: z.ZodType) {
  return {
    "application/json": {
      schema: z.object({ data, took_ms: z.number() }),
    },
  };
}

/** `{data: <schema>, took_ms}` under 200 (or `status`), with the usual errors. */
export function answers(
  description: string,
  data: z.ZodType,
  status: 200 | 201 | 202 = 200,
  more: Record<number, { description: string; content?: unknown }> = {},
) {
  return {
    [status]: {
      description,
      content: dataContent(data),
    },
    ...more,
    ...errorResponses,
  };
}
