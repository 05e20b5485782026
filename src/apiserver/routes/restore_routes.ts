/**
 * `POST /api/v1/restore`: the objects of an export (a `kind: List`, YAML or
 * JSON) applied through the API, all or nothing. Every object is checked
 * before anything is written, by the rules of the objects routes: its
 * schema, the caller's create or update right on its kind at its zone, and
 * its owner (an object a file or another manager owns is refused unless
 * `force=true`, which needs the admin role; one the body holds unchanged
 * is left to its owner). One failure refuses the whole request with every
 * object's error; otherwise each object is applied as the objects routes
 * apply it (manager "api", audited with the caller as actor, a created
 * zone's creator made its zone-admin), and the answer says per object
 * what happened. `dryRun=true` checks and answers without
 * writing. The API's own kinds (users, tokens, bindings, settings) are
 * refused by name: they have routes of their own, and their secrets never
 * travel in an export.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  INTERNAL_KINDS,
  type KindInfo,
  kindInfo,
} from "../../api/v1alpha1/kinds.ts";
import { formatKey, type KObject } from "../../api/v1alpha1/meta.ts";
import { decodeValues } from "../../objects/decode.ts";
import { BOOTSTRAP_MANAGER } from "../../objects/bootstrap.ts";
import {
  PERMISSIONS,
  type Resource,
  type Verb,
} from "../../rbac/permissions.ts";
import { CLUSTER, scopeLabel } from "../../rbac/scope.ts";
import {
  type ApplyPlan,
  defaultValidator,
  keyOfInput,
  planApply,
} from "../../store/apply_rules.ts";
import { checkExport } from "../../store/export_marker.ts";
import { parseObjectList } from "../../store/snapshot.ts";
import { NotFoundError, type Store } from "../../store/store.ts";
import { ok } from "../envelope.ts";
import { MAX_RESTORE_BYTES } from "../json_body.ts";
import { ApiError, type ErrorKey, fromStoreError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import {
  API_MANAGER,
  objectScope,
  type Permits,
  refuseIfReadOnly,
  writeOptions,
} from "./objects.ts";
import { errorResponses } from "./openapi_parts.ts";

/** The body types a restore reads (JSON is YAML too, and read as such). */
const BODY_TYPES = [
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
  "text/x-yaml",
  "application/json",
];

export interface RestoreRoutesDeps {
  store: Store;
  permits(c: Context): Promise<Permits>;
  /** Runs after the caller created a zone (objects.ts ObjectRoutesDeps). */
  zoneCreated?(c: Context, zone: KObject): Promise<void>;
  readOnlyReason?(): string | undefined;
  now: () => number;
}

/** What a restore did, or would do, to one object. */
type Outcome = "created" | "changed" | "unchanged";

/** One object that cannot be restored, and why. */
interface ObjectError {
  /** "DNSZone/home", or "items[3]" for an item too broken to name. */
  object: string;
  /** Its place in the body's items, from 0. */
  index: number;
  key: ErrorKey;
  message: string;
  [detail: string]: unknown;
}

/** An object that passed every check, and what applying it does. */
interface Planned {
  info: KindInfo;
  name: string;
  object: KObject;
  stored: KObject | undefined;
  outcome: Outcome;
}

/** The restore route. */
export function restoreRoutes(deps: RestoreRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "post",
      path: "/api/v1/restore",
      // Every role that may write any kind may write record sets (in its
      // zones, at least), so this is the least a caller needs; each object
      // is then checked against its own kind's row at its zone.
      guard: {
        resource: "dnsrecordsets",
        verb: "create",
        scope: () => ({ kind: "any" }),
      },
      openapi: {
        tags: ["Export and restore"],
        summary: "Apply the objects of an export, all or nothing",
        description:
          "The body is a `kind: List` (or YAML documents) as `GET /api/v1/export` and `kudurru export` " +
          `write it, at most ${
            MAX_RESTORE_BYTES / 1024 / 1024
          } MiB; one that starts with the export's ` +
          "first line must end with its last. Each object needs create (or update, when it exists) on " +
          "its kind at its zone, must validate, and must not be owned by a file or another manager " +
          "(`force=true` takes such objects over and needs the admin role). Status and server-set " +
          "metadata in the body are ignored. When any object fails, nothing is written and the error " +
          "lists every failing object under `errors` (403 when one is not allowed, else 409 when one is " +
          "owned elsewhere, else 422). Users, service accounts, tokens, role bindings and settings are " +
          "refused: they have their own routes.",
        request: {
          query: z.object({
            dryRun: z.enum(["true", "false"]).optional().openapi({
              description: "Check and answer without writing",
            }),
            force: z.enum(["true", "false"]).optional().openapi({
              description:
                "Take over objects another manager owns (admin role only)",
            }),
          }),
          body: {
            required: true,
            content: {
              "application/yaml": { schema: z.string() },
              "application/json": {
                schema: z.object({
                  kind: z.literal("List"),
                  items: z.array(z.object({}).passthrough()),
                }).passthrough(),
              },
            },
          },
        },
        responses: {
          200: {
            description:
              "What happened (or, in a dry run, would) to each object",
            content: {
              "application/json": {
                schema: z.object({
                  data: z.object({
                    dryRun: z.boolean(),
                    results: z.array(z.object({
                      object: z.string(),
                      result: z.enum(["created", "changed", "unchanged"]),
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
      const dryRun = booleanParam(c, "dryRun");
      const force = booleanParam(c, "force");
      const permits = await deps.permits(c);
      if (force && !isAdmin(permits)) {
        throw new ApiError(
          "forbidden",
          "force=true takes objects over from their managers: it needs the admin role",
          { hint: "leave out force, or ask an admin" },
        );
      }
      const items = await bodyItems(c);
      const { planned, errors } = await planAll(
        deps,
        permits,
        items,
        force,
      );
      if (errors.length > 0) throw refusal(errors, items.length);
      const results = [];
      for (const p of planned) {
        if (!dryRun && p.outcome !== "unchanged") {
          await applyOne(c, deps, p, force, results);
        }
        results.push({ object: p.name, result: p.outcome });
      }
      return ok(c, { dryRun, results });
    });
  };
}

function booleanParam(c: Context, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new ApiError("bad_request", `${name} must be true or false`);
}

/** The admin role at cluster scope: every right of the table. */
function isAdmin(permits: Permits): boolean {
  return PERMISSIONS.every((p) => permits(p.resource, p.verb, CLUSTER));
}

/** The body's objects, `kind: List` documents flattened. */
async function bodyItems(c: Context): Promise<unknown[]> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim()
    .toLowerCase();
  if (!BODY_TYPES.includes(type)) {
    throw new ApiError(
      "unsupported_media_type",
      `Cannot read a body of type "${type || "none"}"`,
      { hint: "send application/yaml (an export) or application/json" },
    );
  }
  const text = await c.req.text();
  try {
    checkExport(text, "the body");
    return parseObjectList(text);
  } catch (error) {
    throw new ApiError("bad_request", (error as Error).message, {
      cause: error,
    });
  }
}

/** Checks every item; the plans when all pass, else every failure. */
async function planAll(
  deps: RestoreRoutesDeps,
  permits: Permits,
  items: readonly unknown[],
  force: boolean,
): Promise<{ planned: Planned[]; errors: ObjectError[] }> {
  const planned: Planned[] = [];
  const errors: ObjectError[] = [];
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const failed = (object: string, error: ApiError) =>
      errors.push({
        object,
        index,
        key: error.key,
        message: error.message,
        ...error.details,
      });
    const key = keyOfInput(item);
    const label = key.kind && key.name ? formatKey(key) : `items[${index}]`;
    if (INTERNAL_KINDS.some((k) => k.kind === key.kind)) {
      failed(
        label,
        new ApiError(
          "invalid",
          `${key.kind} is not restored: users, service accounts, tokens, role bindings and settings are kept through their own routes, and never exported`,
        ),
      );
      continue;
    }
    const decoded = decodeValues("body", [item], {
      defaultNamespace: "default",
    });
    const one = decoded.objects[0];
    if (one === undefined) {
      const d = decoded.diagnoses[0];
      failed(
        label,
        new ApiError(
          "invalid",
          (d?.message ?? "not an object").replace(
            /^Cannot load "body": document 1: /,
            "",
          ),
          { hint: d?.hint },
        ),
      );
      continue;
    }
    if (seen.has(one.name)) {
      failed(one.name, new ApiError("invalid", "declared twice in the body"));
      continue;
    }
    seen.add(one.name);
    const info = kindInfo(one.object.kind)!;
    try {
      const stored = await storedOrUndefined(deps.store, one.object);
      requireRight(permits, info, stored, one.object);
      const plan = planOne(deps, stored, one.object, force);
      planned.push({
        info,
        name: one.name,
        object: one.object,
        stored,
        outcome: plan.outcome === "created"
          ? "created"
          : plan.outcome === "unchanged"
          ? "unchanged"
          : "changed",
      });
    } catch (error) {
      const mapped = fromStoreError(error);
      if (!(mapped instanceof ApiError)) throw error;
      failed(one.name, mapped);
    }
  }
  return { planned, errors };
}

/**
 * What applying `object` does. An object the body holds as it is stored
 * is unchanged whoever owns it: nothing is written, so a file's objects
 * are not refused and the first boot's defaults not taken over, and an
 * export restores onto the server it came from. Otherwise the objects
 * routes' rules: another manager's object is refused unless forced, and
 * a default of the first boot is taken over.
 */
function planOne(
  deps: RestoreRoutesDeps,
  stored: KObject | undefined,
  object: KObject,
  force: boolean,
): ApplyPlan {
  const now = () => new Date(deps.now());
  const owner = stored?.metadata.managedBy;
  if (owner !== undefined && owner !== API_MANAGER) {
    const asIs = planApply(
      stored,
      object,
      { manager: owner },
      defaultValidator,
      now,
    );
    if (asIs.outcome === "unchanged") return asIs;
  }
  return planApply(
    stored,
    object,
    {
      manager: API_MANAGER,
      force: force || owner === BOOTSTRAP_MANAGER,
    },
    defaultValidator,
    now,
  );
}

async function storedOrUndefined(
  store: Store,
  obj: KObject,
): Promise<KObject | undefined> {
  try {
    return await store.get(keyOfInput(obj));
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * Create on a new object, update on a stored one, at its zone (and at the
 * stored one's, should a record set name another zone).
 */
function requireRight(
  permits: Permits,
  info: KindInfo,
  stored: KObject | undefined,
  next: KObject,
): void {
  const resource = info.plural as Resource;
  const verb: Verb = stored === undefined ? "create" : "update";
  const scopes = [objectScope(info, next)];
  if (stored !== undefined) scopes.unshift(objectScope(info, stored));
  for (const scope of scopes) {
    if (!permits(resource, verb, scope)) {
      throw new ApiError("forbidden", "Not allowed by the caller's roles", {
        hint: "ask an admin for a role that grants it",
        details: { missing: { resource, verb, scope: scopeLabel(scope) } },
      });
    }
  }
}

/**
 * The error of a refused restore: the most telling key (a missing right
 * before an owner elsewhere before an invalid object), the first object's
 * `missing` or `owner` at the top as other errors carry them, and every
 * failing object under `errors` and, for clients that print issues, as
 * one issue each.
 */
function refusal(errors: readonly ObjectError[], total: number): ApiError {
  const first = (key: ErrorKey) => errors.find((e) => e.key === key);
  const lead = first("forbidden") ?? first("managed_by") ?? errors[0]!;
  const key = lead.key === "forbidden" || lead.key === "managed_by"
    ? lead.key
    : errors.some((e) => e.key === "unknown_field")
    ? "unknown_field"
    : "invalid";
  return new ApiError(
    key,
    `${errors.length} of ${total} object${
      total === 1 ? "" : "s"
    } cannot be restored, so nothing was: ${lead.object}: ${lead.message}`,
    {
      ...(typeof lead.hint === "string" && { hint: lead.hint }),
      details: {
        ...(lead.missing !== undefined && { missing: lead.missing }),
        ...(lead.owner !== undefined && { owner: lead.owner }),
        issues: errors.map((e) => ({
          path: e.object,
          message: `${e.message} (${e.key})`,
        })),
        errors,
      },
    },
  );
}

/**
 * Applies one checked object as the objects routes would. A failure now
 * (the object changed since it was checked, a full disk) stops the
 * restore and says which objects were already written.
 */
async function applyOne(
  c: Context,
  deps: RestoreRoutesDeps,
  p: Planned,
  force: boolean,
  done: readonly { object: string; result: Outcome }[],
): Promise<void> {
  try {
    const saved = await deps.store.apply(p.object, {
      ...writeOptions(c, p.stored),
      ...(force && { force: true }),
      ...(p.stored !== undefined &&
        { expectedResourceVersion: p.stored.metadata.resourceVersion! }),
    });
    if (p.outcome === "created" && p.info.kind === "DNSZone") {
      await deps.zoneCreated?.(c, saved);
    }
  } catch (error) {
    const mapped = fromStoreError(error);
    if (!(mapped instanceof ApiError)) throw error;
    const written = done.filter((d) => d.result !== "unchanged");
    throw new ApiError(
      mapped.key,
      `${p.name}: ${mapped.message}; the restore stopped there, after writing ${written.length} object${
        written.length === 1 ? "" : "s"
      }`,
      {
        ...(typeof mapped.details.hint === "string" &&
          { hint: mapped.details.hint }),
        details: { ...mapped.details, written: written.map((d) => d.object) },
        headers: mapped.headers,
      },
    );
  }
}
