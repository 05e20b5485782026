/**
 * The caller's own sessions: where each was opened from, when, when last
 * seen and which one is this; ending one, or every other. A session is a
 * sealed cookie whose id must stay in its user's record
 * (src/auth/session_records.ts): ending it takes the id out, and the
 * cookie no longer opens. "Log out everywhere" (this one too) is
 * `DELETE /api/v1/auth/sessions`. A user of an identity provider has no
 * User object; its sessions are recorded under its name all the same.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findUser } from "../../auth/accounts.ts";
import type { SessionRecords } from "../../auth/session_records.ts";
import type { Store } from "../../store/store.ts";
import { authenticatedOf } from "../authenticated.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { requestOrigin } from "../request_origin.ts";
import type { RoutesTable } from "../routes_table.ts";
import { isoTime } from "./querylog_entry.ts";
import { answers, errorResponses } from "./openapi_parts.ts";

export interface SessionRoutesDeps {
  store: Store;
  records: SessionRecords;
  now: () => number;
  /** Whether `name` is a user of a configured identity provider. */
  providerUser(name: string): boolean;
}

const sessionSchema = z.object({
  id: z.string(),
  created: z.string().openapi({ description: "The login, ISO 8601" }),
  lastSeen: z.string().openapi({
    description:
      "The last request, ISO 8601 (as this node saw it, or as the record last stored it)",
  }),
  address: z.string().openapi({ description: "The client's address at login" }),
  userAgent: z.string().optional().openapi({
    description: "The browser or program at login (its first 160 characters)",
  }),
  current: z.boolean().openapi({ description: "This request's session" }),
}).openapi("Session");

/** The session routes. */
export function sessionRoutes(deps: SessionRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/account/sessions",
      guard: { resource: "sessions", verb: "list", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary: "The caller's sessions, newest first",
        description:
          "A local user's sessions, or those of a user of an identity provider (its web logins; a bearer ID token is no session).",
        responses: answers(
          "The sessions",
          z.object({ items: z.array(sessionSchema) }),
        ),
      },
    }, async (c) => {
      const { name, validAfter } = await ownSessions(c, deps);
      const current = authenticatedOf(c)?.session?.id;
      const items = (await deps.records.list(name, deps.now(), validAfter))
        .map((s) => ({
          id: s.id,
          created: isoTime(s.created),
          lastSeen: isoTime(s.seen),
          address: s.address,
          ...(s.userAgent !== undefined && { userAgent: s.userAgent }),
          current: s.id === current,
        }));
      return ok(c, { items });
    });

    routes.define({
      method: "delete",
      path: "/api/v1/account/sessions/{id}",
      guard: { resource: "sessions", verb: "delete", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary: "End one of the caller's sessions",
        description:
          "Its cookie no longer opens; ending this request's own session logs the caller out.",
        request: { params: z.object({ id: z.string() }) },
        responses: {
          204: { description: "Ended" },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const { name } = await ownSessions(c, deps);
      const id = c.req.param("id")!;
      const ended = await deps.records.end(
        name,
        (s) => s.id === id,
        requestOrigin(c),
        deps.now(),
      );
      if (ended === 0) {
        throw new ApiError("not_found", `No session ${id} of ${name}`);
      }
      return c.body(null, 204);
    });

    routes.define({
      method: "delete",
      path: "/api/v1/account/sessions",
      guard: { resource: "sessions", verb: "delete", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary:
          "Log out everywhere else: every other session of the caller ends",
        responses: answers(
          "How many ended",
          z.object({ ended: z.number().int() }),
        ),
      },
    }, async (c) => {
      const { name } = await ownSessions(c, deps);
      const current = authenticatedOf(c)?.session?.id;
      const ended = await deps.records.end(
        name,
        (s) => s.id !== current,
        requestOrigin(c),
        deps.now(),
      );
      return ok(c, { ended });
    });
  };
}

/** The caller's user name and the time its sessions hold from (ms). */
async function ownSessions(
  c: Context,
  deps: SessionRoutesDeps,
): Promise<{ name: string; validAfter?: number }> {
  const who = authenticatedOf(c)!;
  if (who.principal.kind !== "User") {
    throw new ApiError("bad_request", "Only a user has sessions");
  }
  const name = who.principal.name;
  if (deps.providerUser(name)) return { name };
  const user = await findUser(deps.store, name);
  if (user === undefined) {
    throw new ApiError("bad_request", `No sessions are kept for ${name}`);
  }
  const after = user.spec!.sessionsValidAfter;
  return {
    name: user.metadata.name,
    ...(after !== undefined && { validAfter: Date.parse(after) }),
  };
}
