/**
 * Small pieces the operations, node and audit routes share: refusing
 * unknown body fields, a 422 naming one
 * field, an optional JSON body, and whole numbers from the query.
 */
import type { Context } from "hono";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";

/** 422 `unknown_field` for the first key of `body` not in `known`. */
export function refuseUnknownFields(
  body: Record<string, unknown>,
  known: readonly string[],
): void {
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  throw new ApiError("unknown_field", `${unknown[0]}: unknown field`, {
    hint: `the fields are ${known.join(", ")}`,
    details: {
      issues: unknown.map((k) => ({ path: k, message: "unknown field" })),
    },
  });
}

/** 422 `invalid` for one field. */
export function invalidField(
  path: string,
  message: string,
  hint?: string,
): ApiError {
  return new ApiError("invalid", `${path}: ${message}`, {
    hint,
    details: { issues: [{ path, message }] },
  });
}

/**
 * The body as an object; a POST without a body (no Content-Type and
 * nothing sent) is `{}`, so `curl -X POST` works for calls whose fields are
 * all optional.
 */
export async function optionalObjectBody(
  c: Context,
): Promise<Record<string, unknown>> {
  if (c.req.header("content-type") === undefined) {
    const text = await c.req.text();
    if (text.trim() === "") return {};
  }
  return objectBody(await jsonBody(c));
}

/** A whole number from the query in [min, max], or undefined when absent. */
export function queryInteger(
  c: Context,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ApiError(
      "bad_request",
      `${name} must be a whole number from ${min} to ${max}, not "${text}"`,
    );
  }
  return n;
}
