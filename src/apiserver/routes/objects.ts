/**
 * The kinds over HTTP, the same way for each: list (keyset pages, label
 * selector), create (201 + Location), get (resourceVersion as ETag), replace
 * (PUT), patch (JSON merge patch, RFC 7396), delete (204) and
 * `:batchDelete`. Writes go through the Store as manager "api", so an
 * object a file owns answers 409 `managed_by`, a stale `If-Match` 409
 * `conflict`, and validation 422 naming the field. The defaults of the
 * first boot (manager "bootstrap") are there to be changed: an API write
 * takes them over, as a file that declares them does.
 *
 * Zones and record sets are zone-scoped (a zone-admin may touch only its
 * zones); everything else is cluster-scoped. Lists keep what the caller may
 * see.
 */
import { z } from "@hono/zod-openapi";
import { BOOTSTRAP_MANAGER } from "../../objects/bootstrap.ts";
import type { Context } from "hono";
import { type KindInfo, KINDS } from "../../api/v1alpha1/kinds.ts";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import {
  NotFoundError,
  type ObjectKey,
  type Store,
} from "../../store/store.ts";
import { requestOrigin } from "../request_origin.ts";
import { ok } from "../envelope.ts";
import { ApiError, fromStoreError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import { mergePatch } from "../../api/merge_patch.ts";
import type { ApiRoute, RoutesTable } from "../routes_table.ts";
import type { Resource, Verb } from "../../rbac/permissions.ts";
import type { ScopeRequest } from "../../rbac/scope.ts";
import { errorResponses, listQuery, objectEnvelope } from "./openapi_parts.ts";

/** Whether a caller may do `verb` on `resource` at `scope`. */
export type Permits = (
  resource: Resource,
  verb: Verb,
  scope: ScopeRequest,
) => boolean;

/** The manager every API write is made under. */
export const API_MANAGER = "api";

export interface ObjectRoutesDeps {
  store: Store;
  /** What the caller of `c` may do (a check read once per request). */
  permits(c: Context): Promise<Permits>;
  /** Runs after a zone was created by the caller (its creator becomes its zone-admin). */
  zoneCreated?(c: Context, zone: KObject): Promise<void>;
  /** Why objects cannot be written here now, if they cannot (a static node). */
  readOnlyReason?(): string | undefined;
}

/** The kinds' routes. */
export function objectRoutes(deps: ObjectRoutesDeps) {
  return (routes: RoutesTable): void => {
    for (const info of KINDS) kindRoutes(routes, info, deps);
  };
}

function kindRoutes(
  routes: RoutesTable,
  info: KindInfo,
  deps: ObjectRoutesDeps,
): void {
  const resource = info.plural as Resource;
  const base = info.namespaced
    ? `/api/v1/namespaces/{namespace}/${info.plural}`
    : `/api/v1/${info.plural}`;
  const item = `${base}/{name}`;
  const tag = info.kind;
  const params = z.object({
    ...(info.namespaced && { namespace: z.string() }),
    name: z.string(),
  });
  const collectionParams = info.namespaced
    ? z.object({ namespace: z.string() })
    : undefined;
  const scopeOfItem = (c: Context) => itemScope(c, info, deps.store);
  const define = (
    route: ApiRoute,
    handler: (c: Context) => Promise<Response>,
  ) => routes.define(route, handler);

  const list = async (c: Context) => {
    const limit = c.req.query("limit");
    const result = await deps.store.list(info.kind, {
      ...(c.req.param("namespace") && { namespace: c.req.param("namespace")! }),
      ...(c.req.query("labelSelector") &&
        { labelSelector: c.req.query("labelSelector")! }),
      ...(limit !== undefined && { limit: pageSize(limit) }),
      ...(c.req.query("continue") && { continue: c.req.query("continue")! }),
    });
    const permits = await deps.permits(c);
    const items = result.items.filter((o) =>
      permits(resource, "list", objectScope(info, o))
    );
    if (
      items.length === 0 && result.items.length > 0 &&
      !permits(resource, "list", { kind: "cluster" })
    ) {
      throw new ApiError("forbidden", "Not allowed by the caller's roles", {
        details: { missing: { resource, verb: "list", scope: "cluster" } },
      });
    }
    return ok(c, {
      items,
      ...(result.continue !== undefined && { continue: result.continue }),
      resourceVersion: result.resourceVersion,
    });
  };
  const listRoute = (path: string, summary: string): ApiRoute => ({
    method: "get",
    path,
    guard: { resource, verb: "list", scope: () => ({ kind: "any" }) },
    openapi: {
      tags: [tag],
      summary,
      request: {
        ...(path.includes("{namespace}") && { params: collectionParams! }),
        query: listQuery,
      },
      responses: {
        200: {
          description: "One page of objects, and `continue` when more follow",
          content: {
            "application/json": {
              schema: z.object({
                data: z.object({
                  items: z.array(info.objectSchema as z.ZodType),
                  continue: z.string().optional(),
                  resourceVersion: z.string(),
                }),
                took_ms: z.number(),
              }),
            },
          },
        },
        ...errorResponses,
      },
    },
  });
  define(listRoute(base, `List ${info.plural}`), list);
  if (info.namespaced) {
    define(
      listRoute(
        `/api/v1/${info.plural}`,
        `List ${info.plural} in every namespace`,
      ),
      list,
    );
  }

  define({
    method: "post",
    path: base,
    guard: {
      resource,
      verb: "create",
      scope: async (c) => bodyScope(info, await bodyOf(c)),
    },
    openapi: {
      tags: [tag],
      summary: `Create a ${info.kind}`,
      request: {
        ...(collectionParams && { params: collectionParams }),
        body: {
          required: true,
          content: {
            "application/json": { schema: info.objectSchema as z.ZodType },
          },
        },
      },
      responses: {
        201: {
          description: "Created; Location names it",
          content: { "application/json": { schema: objectEnvelope(info) } },
        },
        ...errorResponses,
      },
    },
  }, async (c) => {
    refuseIfReadOnly(deps);
    const input = withEnvelope(info, objectBody(await bodyOf(c)), c);
    const key = keyOf(info, input);
    if (await exists(deps.store, key)) {
      throw new ApiError(
        "conflict",
        `${info.kind} "${qualified(key)}" already exists`,
        { hint: "PUT or PATCH it to change it" },
      );
    }
    const stored = await deps.store.apply(input, writeOptions(c));
    if (info.kind === "DNSZone") await deps.zoneCreated?.(c, stored);
    c.header("Location", locationOf(info, stored));
    c.header("ETag", etag(stored));
    return ok(c, stored, 201);
  });

  define({
    method: "get",
    path: item,
    guard: { resource, verb: "get", scope: scopeOfItem },
    openapi: {
      tags: [tag],
      summary: `Read a ${info.kind}`,
      request: { params },
      responses: {
        200: {
          description: "The object; ETag is its resourceVersion",
          content: { "application/json": { schema: objectEnvelope(info) } },
        },
        ...errorResponses,
      },
    },
  }, async (c) => {
    const stored = await deps.store.get(keyFromPath(info, c));
    c.header("ETag", etag(stored));
    return ok(c, stored);
  });

  define({
    method: "put",
    path: item,
    guard: { resource, verb: "update", scope: scopeOfItem },
    openapi: {
      tags: [tag],
      summary: `Replace a ${info.kind}`,
      description:
        "The whole object; `If-Match` (or metadata.resourceVersion) makes it conditional.",
      request: {
        params,
        body: {
          required: true,
          content: {
            "application/json": { schema: info.objectSchema as z.ZodType },
          },
        },
      },
      responses: {
        200: {
          description: "The stored object",
          content: { "application/json": { schema: objectEnvelope(info) } },
        },
        ...errorResponses,
      },
    },
  }, async (c) => {
    refuseIfReadOnly(deps);
    const key = keyFromPath(info, c);
    const stored = await deps.store.get(key);
    const input = withEnvelope(info, objectBody(await bodyOf(c)), c);
    sameName(key, keyOf(info, input));
    requireSameZone(await deps.permits(c), info, input);
    const expected = ifMatch(c) ?? input.metadata.resourceVersion;
    const saved = await deps.store.apply(input, {
      ...writeOptions(c, stored),
      expectedResourceVersion: expected ?? stored.metadata.resourceVersion!,
    });
    c.header("ETag", etag(saved));
    return ok(c, saved);
  });

  define({
    method: "patch",
    path: item,
    guard: { resource, verb: "update", scope: scopeOfItem },
    openapi: {
      tags: [tag],
      summary: `Patch a ${info.kind}`,
      description:
        "A JSON merge patch (RFC 7396) of the stored object: null removes a member.",
      request: {
        params,
        body: {
          required: true,
          content: {
            "application/merge-patch+json": {
              schema: z.object({}).passthrough(),
            },
          },
        },
      },
      responses: {
        200: {
          description: "The stored object",
          content: { "application/json": { schema: objectEnvelope(info) } },
        },
        ...errorResponses,
      },
    },
  }, async (c) => {
    refuseIfReadOnly(deps);
    const key = keyFromPath(info, c);
    const patch = objectBody(
      await jsonBody(c, ["application/merge-patch+json", "application/json"]),
    );
    const stored = await deps.store.get(key);
    const { status: _status, ...current } = stored;
    const merged = objectBody(mergePatch(current, patch)) as unknown as KObject;
    sameName(key, keyOf(info, merged));
    requireSameZone(await deps.permits(c), info, merged);
    const saved = await deps.store.apply(merged, {
      ...writeOptions(c, stored),
      expectedResourceVersion: ifMatch(c) ?? stored.metadata.resourceVersion!,
    });
    c.header("ETag", etag(saved));
    return ok(c, saved);
  });

  define({
    method: "delete",
    path: item,
    guard: { resource, verb: "delete", scope: scopeOfItem },
    openapi: {
      tags: [tag],
      summary: `Delete a ${info.kind}`,
      request: { params },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    refuseIfReadOnly(deps);
    const expected = ifMatch(c);
    const key = keyFromPath(info, c);
    await deps.store.delete(key, {
      ...writeOptions(c, await deps.store.get(key)),
      ...(expected !== undefined && { expectedResourceVersion: expected }),
    });
    return c.body(null, 204);
  });

  define({
    method: "post",
    path: `${base}:batchDelete`,
    guard: { resource, verb: "delete", scope: (c) => batchScope(c, info) },
    openapi: {
      tags: [tag],
      summary: `Delete several ${info.plural}`,
      description:
        "Each name is deleted on its own: the answer says, per name, deleted or why not.",
      request: {
        ...(collectionParams && { params: collectionParams }),
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({ names: z.array(z.string()).min(1).max(1000) }),
            },
          },
        },
      },
      responses: {
        200: {
          description: "What happened to each name",
          content: {
            "application/json": {
              schema: z.object({
                data: z.object({
                  results: z.array(z.object({
                    name: z.string(),
                    deleted: z.boolean(),
                    error: z.object({ key: z.string(), message: z.string() })
                      .optional(),
                  })),
                }),
                took_ms: z.number(),
              }),
            },
          },
        },
        ...errorResponses,
      },
    },
  }, async (c) => {
    refuseIfReadOnly(deps);
    const names = batchNames(await bodyOf(c));
    const results = [];
    for (const name of names) {
      const key: ObjectKey = {
        kind: info.kind,
        namespace: info.namespaced ? c.req.param("namespace")! : "",
        name,
      };
      try {
        await deps.store.delete(
          key,
          writeOptions(c, await deps.store.get(key)),
        );
        results.push({ name, deleted: true });
      } catch (error) {
        const mapped = fromStoreError(error);
        if (!(mapped instanceof ApiError)) throw error;
        results.push({
          name,
          deleted: false,
          error: { key: mapped.key, message: mapped.message },
        });
      }
    }
    return ok(c, { results });
  });
}

/** The body, read once per request (guards and handlers share it). */
async function bodyOf(c: Context): Promise<unknown> {
  const held = c.get("kudurruBody" as never) as { body: unknown } | undefined;
  if (held !== undefined) return held.body;
  const body = await jsonBody(c);
  c.set("kudurruBody" as never, { body } as never);
  return body;
}

/** apiVersion, kind and the path's namespace filled in where the body left them out. */
function withEnvelope(
  info: KindInfo,
  body: Record<string, unknown>,
  c: Context,
): KObject {
  const metadata = objectBody(body.metadata ?? {});
  const namespace = c.req.param("namespace");
  if (
    namespace !== undefined && metadata.namespace !== undefined &&
    metadata.namespace !== namespace
  ) {
    throw new ApiError(
      "invalid",
      `metadata.namespace "${metadata.namespace}" is not the path's "${namespace}"`,
      {
        details: {
          issues: [{
            path: "metadata.namespace",
            message: `must be "${namespace}" (the path's)`,
          }],
        },
      },
    );
  }
  const { status: _status, ...rest } = body;
  return {
    ...rest,
    apiVersion: body.apiVersion ?? API_VERSION,
    kind: body.kind ?? info.kind,
    metadata: {
      ...metadata,
      ...(namespace !== undefined && { namespace }),
    },
  } as KObject;
}

function keyOf(info: KindInfo, obj: KObject): ObjectKey {
  if (obj.kind !== info.kind) {
    throw new ApiError("invalid", `kind must be "${info.kind}" here`, {
      details: {
        issues: [{ path: "kind", message: `must be "${info.kind}"` }],
      },
    });
  }
  const name = obj.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new ApiError("invalid", "metadata.name is required", {
      details: { issues: [{ path: "metadata.name", message: "is required" }] },
    });
  }
  return {
    kind: info.kind,
    namespace: info.namespaced ? obj.metadata.namespace ?? "" : "",
    name,
  };
}

function keyFromPath(info: KindInfo, c: Context): ObjectKey {
  return {
    kind: info.kind,
    namespace: info.namespaced ? c.req.param("namespace")! : "",
    name: c.req.param("name")!,
  };
}

function sameName(path: ObjectKey, body: ObjectKey): void {
  if (path.name !== body.name) {
    throw new ApiError(
      "invalid",
      `metadata.name "${body.name}" is not the path's "${path.name}"`,
      {
        hint:
          "an object cannot be renamed: create the new one and delete the old",
        details: {
          issues: [{
            path: "metadata.name",
            message: `must be "${path.name}"`,
          }],
        },
      },
    );
  }
}

/** The zone scope an object acts in, or cluster for the cluster-scoped kinds. */
export function objectScope(info: KindInfo, obj: KObject): ScopeRequest {
  if (info.kind === "DNSZone") return { kind: "zone", name: obj.metadata.name };
  if (info.kind === "DNSRecordSet") {
    const zone = (obj.spec as { zoneRef?: { name?: string } } | undefined)
      ?.zoneRef?.name;
    if (typeof zone === "string") return { kind: "zone", name: zone };
  }
  return { kind: "cluster" };
}

function bodyScope(info: KindInfo, body: unknown): ScopeRequest {
  if (typeof body !== "object" || body === null) return { kind: "cluster" };
  return objectScope(info, body as KObject);
}

/** The scope of the object the path names: the stored one, or the body's when new. */
async function itemScope(
  c: Context,
  info: KindInfo,
  store: Store,
): Promise<ScopeRequest> {
  if (info.kind === "DNSZone") {
    return { kind: "zone", name: c.req.param("name")! };
  }
  if (info.kind !== "DNSRecordSet") return { kind: "cluster" };
  try {
    return objectScope(info, await store.get(keyFromPath(info, c)));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // Not there: answered 404 by the handler, to a caller allowed cluster-wide.
    return { kind: "cluster" };
  }
}

/** A record set may not move to a zone its writer is not allowed in. */
function requireSameZone(
  permits: Permits,
  info: KindInfo,
  next: KObject,
): void {
  if (info.kind !== "DNSRecordSet") return;
  const scope = objectScope(info, next);
  if (!permits(info.plural as Resource, "update", scope)) {
    throw new ApiError("forbidden", "Not allowed in the record set's zone", {
      details: {
        missing: {
          resource: info.plural,
          verb: "update",
          scope: scope.kind === "zone" ? `zone:${scope.name}` : "cluster",
        },
      },
    });
  }
}

async function batchScope(c: Context, info: KindInfo): Promise<ScopeRequest> {
  // A batch may span zones: it needs the verb cluster-wide, but for one
  // zone deleted by name.
  if (info.kind === "DNSZone") {
    const names = batchNames(await bodyOf(c));
    if (names.length === 1) return { kind: "zone", name: names[0]! };
  }
  return { kind: "cluster" };
}

function batchNames(body: unknown): string[] {
  const names = objectBody(body).names;
  if (
    !Array.isArray(names) || names.length === 0 || names.length > 1000 ||
    names.some((n) => typeof n !== "string" || n === "")
  ) {
    throw new ApiError("invalid", "names must list 1 to 1,000 object names", {
      details: {
        issues: [{ path: "names", message: "must be 1 to 1,000 names" }],
      },
    });
  }
  return names as string[];
}

async function exists(store: Store, key: ObjectKey): Promise<boolean> {
  try {
    await store.get(key);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * Store options of an API write: the manager, and who asked, how and from
 * where; a default of the first boot (`stored` managed by "bootstrap") is
 * taken over.
 */
export function writeOptions(c: Context, stored?: KObject) {
  return {
    manager: API_MANAGER,
    ...(stored?.metadata.managedBy === BOOTSTRAP_MANAGER && { force: true }),
    ...requestOrigin(c),
  };
}

/** Who the audit row names. */
export function actorOf(c: Context): string {
  return requestOrigin(c).actor;
}

/** `If-Match: "42"` → "42" (a weak validator or `*` means nothing here). */
function ifMatch(c: Context): string | undefined {
  const header = c.req.header("if-match")?.trim();
  if (header === undefined || header === "" || header === "*") return undefined;
  const m = /^"([^"]*)"$/.exec(header);
  return m ? m[1] : header;
}

function etag(obj: KObject): string {
  return `"${obj.metadata.resourceVersion ?? ""}"`;
}

function locationOf(info: KindInfo, obj: KObject): string {
  return info.namespaced
    ? `/api/v1/namespaces/${obj.metadata.namespace}/${info.plural}/${obj.metadata.name}`
    : `/api/v1/${info.plural}/${obj.metadata.name}`;
}

function qualified(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/** `limit`: 1 to 1000. */
function pageSize(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new ApiError(
      "bad_request",
      "limit must be a whole number from 1 to 1000",
    );
  }
  return n;
}

/** 409 `read_only` with the reason, on a node where objects are read-only. */
export function refuseIfReadOnly(
  deps: { readOnlyReason?(): string | undefined },
): void {
  const reason = deps.readOnlyReason?.();
  if (reason !== undefined) {
    throw new ApiError(
      "read_only",
      `Objects cannot be changed here: ${reason}`,
    );
  }
}
