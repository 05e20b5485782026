/**
 * What the account routes share (user_routes.ts, serviceaccount_routes.ts,
 * token_routes.ts, rolebinding_routes.ts): their dependencies, the answer
 * they document, and reading a required field and a whole kind.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { KObject } from "../../api/v1alpha1/meta.ts";
import type { Binding } from "../../rbac/binding.ts";
import type { Store } from "../../store/store.ts";
import type { SessionRecords } from "../../auth/session_records.ts";
import { ApiError } from "../errors.ts";
import { errorResponses } from "./openapi_parts.ts";

export interface AccountRoutesDeps {
  store: Store;
  now: () => number;
  /** `auth.tokens.maxLifetime` in ms; 0: no limit. */
  maxTokenLifetimeMs: number;
  /** The configuration's bindings, listed beside the API's (read-only). */
  configuredBindings: readonly Binding[];
  /** Where a deleted user's sessions are forgotten. */
  sessionRecords: Pick<SessionRecords, "forget">;
  /** A RoleBinding changed: the permission checks read them again. */
  bindingsChanged(): void;
  /** Whether the caller may do `verb` on `tokens` for someone else. */
  mayManageAllTokens(
    c: Context,
    verb: "list" | "delete" | "create",
  ): Promise<boolean>;
}

/** The answer the account routes document: any data in the envelope. */
export const anyAnswer = {
  200: {
    description: "OK",
    content: {
      "application/json": {
        schema: z.object({ data: z.unknown(), took_ms: z.number() }),
      },
    },
  },
  ...errorResponses,
};

/** Every object of `kind`, read page by page. */
export async function listAll(store: Store, kind: string): Promise<KObject[]> {
  const out: KObject[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(kind, {
      limit: 500,
      ...(token !== undefined && { continue: token }),
    });
    out.push(...page.items);
    token = page.continue;
  } while (token !== undefined);
  return out;
}

/** `body[name]` as a non-empty string, else 422 naming it. */
export function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string" || value === "") {
    throw new ApiError("invalid", `${name} is required`, {
      details: { issues: [{ path: name, message: "is required (a string)" }] },
    });
  }
  return value;
}
