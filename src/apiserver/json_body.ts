/**
 * Reading a request body as JSON, within the size limit, and JSON merge
 * patch (RFC 7396). A malformed body is a 400 that says where it broke; a
 * body that is not a JSON object where one is needed is a 422.
 */
import type { Context } from "hono";
import { ApiError } from "./errors.ts";

/** Largest body the API reads (a record set of 1,000 endpoints fits easily). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Largest export `POST /api/v1/restore` reads: an export with big inline
 * lists is larger than one object.
 */
export const MAX_RESTORE_BYTES = 8 * 1024 * 1024;

/** The body, parsed; media types other than JSON are refused. */
export async function jsonBody(
  c: Context,
  accept: readonly string[] = ["application/json"],
): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim()
    .toLowerCase();
  if (!accept.includes(type)) {
    throw new ApiError(
      "unsupported_media_type",
      `Cannot read a body of type "${type || "none"}"`,
      { hint: `send ${accept.join(" or ")}` },
    );
  }
  const text = await c.req.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) {
    throw new ApiError(
      "body_too_large",
      `The body is larger than ${MAX_BODY_BYTES} bytes`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(
      "invalid_json",
      `The body is not JSON: ${(error as Error).message}`,
    );
  }
}

/** `body` as a plain object, or a 422 saying what it is instead. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError("invalid", "The body must be a JSON object", {
      details: { issues: [{ path: "", message: "must be an object" }] },
    });
  }
  return body as Record<string, unknown>;
}
