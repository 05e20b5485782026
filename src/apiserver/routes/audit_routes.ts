/**
 * The audit log over HTTP: who changed what, newest first, in keyset pages
 * (`continue`), filtered by kind, namespace, name, actor, action and time;
 * and one row with the object before and after the change (once the store
 * keeps them: schema v3). Runtime values (the blocking pause) are kind
 * `Runtime`, named by their key.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findKind } from "../../api/v1alpha1/kinds.ts";
import { parseDuration } from "../../config/duration.ts";
import {
  AUDIT_DEFAULT_LIMIT,
  AUDIT_MAX_LIMIT,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  InvalidAuditQueryError,
} from "../../store/audit_query.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import { queryInteger } from "./request_parts.ts";
import { answers } from "./openapi_parts.ts";

export interface AuditRoutesDeps {
  /** The Store's audit reader (Store.readAudit); rejects with InvalidAuditQueryError. */
  readAudit(query: AuditQuery): Promise<AuditPage>;
  /** Epoch ms, for `since` given as a duration. */
  now: () => number;
}

const FILTERS = ["kind", "namespace", "name", "actor", "action"] as const;

const rowFields = {
  id: z.number().int(),
  time: z.string(),
  actor: z.string(),
  manager: z.string(),
  action: z.string().openapi({
    description:
      "create, update, delete, finalize, status; for runtime values set, delete",
  }),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
  resourceVersion: z.string(),
  generation: z.number().int(),
  authorization: z.string().optional().openapi({
    description:
      "How the caller proved who it is (session, token <id>, socket)",
  }),
  client: z.string().optional().openapi({
    description: "The client's address",
  }),
};
const rowSchema = z.object(rowFields);
const fullRowSchema = z.object({
  ...rowFields,
  before: z.unknown().optional().openapi({
    description:
      "The object before the change, secrets masked; absent for a create",
  }),
  after: z.unknown().optional().openapi({
    description:
      "The object after the change, secrets masked; absent for a delete",
  }),
});

/** The audit routes. */
export function auditRoutes(deps: AuditRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/audit",
      guard: { resource: "audit", verb: "list" },
      openapi: {
        tags: ["Audit"],
        summary: "Read the audit log",
        description:
          "Newest first. Filters match exactly; `kind` also takes a kind's plural or short name " +
          "(`dnszones`, `zone`). Rows leave out the before and after bodies: read one row for them.",
        request: {
          query: z.object({
            kind: z.string().optional(),
            namespace: z.string().optional(),
            name: z.string().optional(),
            actor: z.string().optional(),
            action: z.string().optional(),
            since: z.string().optional().openapi({
              description:
                "Rows at or after this time: ISO 8601, or a duration back from now (`1h`, `7d`)",
            }),
            limit: z.string().optional().openapi({
              description:
                `Page size, 1 to ${AUDIT_MAX_LIMIT} (${AUDIT_DEFAULT_LIMIT})`,
            }),
            continue: z.string().optional().openapi({
              description: "The `continue` of the previous page",
            }),
          }),
        },
        responses: answers(
          "One page of rows, and `continue` when older ones follow",
          z.object({
            items: z.array(rowSchema),
            continue: z.string().optional(),
          }),
        ),
      },
    }, async (c) => {
      const page = await read(deps, listQuery(c, deps));
      return ok(c, {
        items: page.items.map((r) => shownRow(r, false)),
        ...(page.continue !== undefined && { continue: page.continue }),
      });
    });

    routes.define({
      method: "get",
      path: "/api/v1/audit/{id}",
      guard: { resource: "audit", verb: "get" },
      openapi: {
        tags: ["Audit"],
        summary: "Read one audit row, with the object before and after",
        request: { params: z.object({ id: z.string() }) },
        responses: answers("The row", fullRowSchema),
      },
    }, async (c) => {
      const text = c.req.param("id") ?? "";
      const id = Number(text);
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(id) || id < 1) {
        throw new ApiError("bad_request", `"${text}" is not an audit row id`);
      }
      const [row] = (await read(deps, { id, limit: 1 })).items;
      if (row === undefined) {
        throw new ApiError("not_found", `No audit row ${id}`);
      }
      return ok(c, shownRow(row, true));
    });
  };
}

/** The list's query from the URL; 400 for a bad limit or since. */
function listQuery(c: Context, deps: AuditRoutesDeps): AuditQuery {
  const query: AuditQuery = {};
  for (const field of FILTERS) {
    const value = c.req.query(field);
    if (value !== undefined && value !== "") query[field] = value;
  }
  if (query.kind !== undefined) {
    query.kind = findKind(query.kind)?.kind ?? query.kind;
  }
  const limit = queryInteger(c, "limit", 1, AUDIT_MAX_LIMIT);
  if (limit !== undefined) query.limit = limit;
  const since = c.req.query("since");
  if (since !== undefined && since !== "") query.since = sinceTime(since, deps);
  const token = c.req.query("continue");
  if (token !== undefined && token !== "") query.continue = token;
  return query;
}

/** An ISO 8601 time as given, or a duration back from now as one. */
function sinceTime(text: string, deps: AuditRoutesDeps): string {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(deps.now() - ago).toISOString();
  return text;
}

async function read(
  deps: AuditRoutesDeps,
  query: AuditQuery,
): Promise<AuditPage> {
  try {
    return await deps.readAudit(query);
  } catch (error) {
    if (!(error instanceof InvalidAuditQueryError)) throw error;
    throw new ApiError("bad_request", error.message, {
      details: { field: error.field },
      ...(error.field === "since" &&
        { hint: "give an ISO 8601 time or a duration such as 1h" }),
      cause: error,
    });
  }
}

/** A row as the API shows it: resourceVersion as text, no empty namespace. */
function shownRow(row: AuditRecord, bodies: boolean): Record<string, unknown> {
  const { before, after, namespace, resourceVersion, ...rest } = row;
  return {
    ...rest,
    ...(namespace !== "" && { namespace }),
    resourceVersion: String(resourceVersion),
    ...(bodies && before !== undefined && { before }),
    ...(bodies && after !== undefined && { after }),
  };
}
