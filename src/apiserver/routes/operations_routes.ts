/**
 * Day-to-day operations over HTTP: the temporary blocking switch (the same
 * runtime value `kudurru blocking disable --for 5m` / `enable` writes, so
 * it reaches every node, survives a restart and runs out by itself),
 * flushing cached answers (as `kudurru cache flush [NAME [--subtree]]`),
 * and fetching a block list's sources now rather than at its next
 * refreshInterval.
 */
import type { Logger } from "../../log/logger.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  BLOCKING_DISABLED_KEY,
  disableBlocking,
  enableBlocking,
  MAX_BLOCKING_DISABLE_MS,
  parseDisabledUntil,
} from "../../blocking/blocking_state.ts";
import { parseDuration } from "../../config/duration.ts";
import { checkDomainName } from "../../dns/name.ts";
import type { ObjectKey, Store } from "../../store/store.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { offMainThread } from "../busy_budget.ts";
import { requestOrigin } from "../request_origin.ts";
import {
  invalidField,
  optionalObjectBody,
  refuseUnknownFields,
} from "./request_parts.ts";
import { answers } from "./openapi_parts.ts";

/** What one URL source's fetch came to, in a refresh answer. */
export interface ListRefreshSource {
  url: string;
  /** Fetched (or confirmed unchanged by a 304). */
  ok: boolean;
  /** The body differs from the copy held before. */
  changed?: boolean;
  /** When the copy now held was fetched (ISO 8601). */
  fetchedAt?: string;
  /** Why not, when not ok (the older copy, if any, stays in use). */
  error?: string;
}

/** What the list fetcher says to "fetch this BlockList now". */
export type ListRefreshResult =
  /** Every enabled URL source was fetched (or failed) just now. */
  | { state: "fetched"; sources: ListRefreshSource[] }
  /** This node does not fetch lists: the leader of the "lists" election does. */
  | { state: "notLeader"; leader: string }
  /** The fetcher does not hold the BlockList (yet: it was just created). */
  | { state: "unknown" };

export interface OperationsRoutesDeps {
  /** Where blocking.disabledUntil is kept, and the BlockLists are read. */
  store: Pick<Store, "get" | "getRuntime" | "setRuntime" | "recordOperation">;
  /** Epoch ms. */
  now: () => number;
  /** `blocking.enabled` as the server started with it: false is off, pause or not. */
  blockingConfigured: boolean;
  /**
   * Drops cached answers on this node: all, those for `name`, or with
   * `subtree` those for it and every name below it; resolves to how many
   * went (`listeners.flushCache`).
   */
  flushCache(name?: string, opts?: { subtree?: boolean }): Promise<number>;
  /** Asks the list fetcher to fetch the BlockList's enabled URL sources now. */
  refreshList(key: ObjectKey): Promise<ListRefreshResult>;
  /** How long a refresh waits for the downloads before answering 202. @default 10000 */
  refreshWaitMs?: number;
  /**
   * Hears what came of the operations that change no stored state (cache
   * flushes, list refreshes); their audit rows say who asked.
   */
  logger?: Logger;
}

/** Shorter is almost always a typo ("5ms" for "5m"), as the CLI says. */
const MIN_DISABLE_MS = 1000;
/** `{enabled: false}` without `for`: as `kudurru blocking disable` without a duration. */
export const DEFAULT_DISABLE_MS = 5 * 60_000;
const DEFAULT_REFRESH_WAIT_MS = 10_000;
const REFRESH_SUFFIX = ":refresh";
/** The name a flush of every cached answer is audited and logged under. */
const ALL = "(all)";

const blockingState = z.object({
  enabled: z.boolean().openapi({
    description: "Whether blocking is in force now",
  }),
  configured: z.boolean().openapi({
    description: "`blocking.enabled` in the configuration the server runs",
  }),
  reason: z.enum(["configuration", "paused"]).optional().openapi({
    description: "Why blocking is off, when it is",
  }),
  disabledUntil: z.string().optional().openapi({
    description: "While paused: when blocking comes back on (ISO 8601)",
  }),
  remainingSeconds: z.number().int().optional(),
  setBy: z.string().optional().openapi({ description: "Who paused it" }),
  setAt: z.string().optional(),
});

export type BlockingStateAnswer = z.infer<typeof blockingState>;

/** The operations routes. */
export function operationsRoutes(deps: OperationsRoutesDeps) {
  return (routes: RoutesTable): void => {
    blockingRoutes(routes, deps);
    cacheRoutes(routes, deps);
    refreshRoutes(routes, deps);
  };
}

function blockingRoutes(routes: RoutesTable, deps: OperationsRoutesDeps) {
  routes.define({
    method: "get",
    path: "/api/v1/blocking",
    guard: { resource: "blocking", verb: "get" },
    openapi: {
      tags: ["Operations"],
      summary: "Read the blocking state",
      responses: answers(
        "On, off by configuration, or paused until a time",
        blockingState,
      ),
    },
  }, async (c) => ok(c, await readBlockingState(deps)));

  routes.define({
    method: "put",
    path: "/api/v1/blocking",
    guard: { resource: "blocking", verb: "set" },
    openapi: {
      tags: ["Operations"],
      summary: "Pause blocking for a while, or turn it back on",
      description:
        '`{enabled: false, for: "5m"}` pauses blocking on every node (1s to 24h; 5m without `for`), ' +
        "as `kudurru blocking disable 5m`; it comes back on by itself. `{enabled: true}` ends a pause now. " +
        "Neither changes `blocking.enabled` in the configuration.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                enabled: z.boolean(),
                for: z.string().optional().openapi({
                  description: "How long to pause: 30s, 5m, 1h30m …",
                  example: "5m",
                }),
              }),
            },
          },
        },
      },
      responses: answers("The blocking state after the change", blockingState),
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    refuseUnknownFields(body, ["enabled", "for"]);
    if (typeof body.enabled !== "boolean") {
      throw invalidField(
        "enabled",
        body.enabled === undefined ? "is required" : "must be true or false",
      );
    }
    const origin = requestOrigin(c);
    if (body.enabled) {
      if (body.for !== undefined) {
        throw invalidField(
          "for",
          "is only for pausing (enabled: false)",
          "leave it out to turn blocking back on",
        );
      }
      await enableBlocking(deps.store, origin);
    } else {
      const forMs = body.for === undefined
        ? DEFAULT_DISABLE_MS
        : pauseLength(body.for);
      await disableBlocking(deps.store, forMs, {
        ...origin,
        now: () => new Date(deps.now()),
      });
    }
    return ok(c, await readBlockingState(deps));
  });
}

/** Milliseconds of a pause, with the CLI's bounds and hints; 422 otherwise. */
export function pauseLength(value: unknown): number {
  if (typeof value !== "string") {
    throw invalidField("for", 'must be a duration such as "30s", "5m" or "1h"');
  }
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw invalidField(
      "for",
      `"${value}" is not a duration such as 30s, 5m or 1h`,
      /^\d+(\.\d+)?$/.test(value)
        ? `did you mean "${value}s" or "${value}m"?`
        : undefined,
    );
  }
  if (ms < MIN_DISABLE_MS) {
    throw invalidField(
      "for",
      `${value} is too short; the shortest is 1s`,
      value.endsWith("ms") && ms > 0
        ? `did you mean "${value.slice(0, -1)}"?`
        : undefined,
    );
  }
  if (ms > MAX_BLOCKING_DISABLE_MS) {
    throw invalidField(
      "for",
      `${value} is longer than the 24h limit`,
      "to turn blocking off for good set blocking.enabled: false in the configuration",
    );
  }
  return ms;
}

/** The state as the nodes apply it: a stored time that is not one, or has passed, is on. */
export async function readBlockingState(
  deps: Pick<OperationsRoutesDeps, "store" | "now" | "blockingConfigured">,
): Promise<BlockingStateAnswer> {
  const configured = deps.blockingConfigured;
  const stored = await deps.store.getRuntime(BLOCKING_DISABLED_KEY);
  const until = stored && parseDisabledUntil(stored.value);
  const now = deps.now();
  const paused = until !== undefined && until > now;
  const pause = paused
    ? {
      disabledUntil: new Date(until).toISOString(),
      remainingSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
      ...(stored!.actor !== undefined && { setBy: stored!.actor }),
      setAt: stored!.updatedAt,
    }
    : {};
  if (!configured) {
    return { enabled: false, configured, reason: "configuration", ...pause };
  }
  return paused
    ? { enabled: false, configured, reason: "paused", ...pause }
    : { enabled: true, configured };
}

function cacheRoutes(routes: RoutesTable, deps: OperationsRoutesDeps) {
  routes.define({
    method: "post",
    path: "/api/v1/cache/flush",
    guard: { resource: "cache", verb: "flush" },
    openapi: {
      tags: ["Operations"],
      summary: "Drop cached answers",
      description:
        "Without `name` every cached answer goes; with it, those for that exact name (every type); " +
        "with `subtree` too, those for the name and every name below it (`.` with `subtree` is everything). " +
        "As `kudurru cache flush [NAME [--subtree]]`, on this node.",
      request: {
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string().optional().openapi({
                  example: "ads.example.com",
                }),
                subtree: z.boolean().optional(),
              }),
            },
          },
        },
      },
      responses: answers(
        "How many cached answers went",
        z.object({
          flushed: z.number().int(),
          name: z.string().optional(),
          subtree: z.boolean(),
        }),
      ),
    },
  }, async (c) => {
    const body = await optionalObjectBody(c);
    refuseUnknownFields(body, ["name", "subtree"]);
    const { name, subtree = false } = body;
    if (typeof subtree !== "boolean") {
      throw invalidField("subtree", "must be true or false");
    }
    if (name !== undefined) checkFlushName(name, subtree);
    if (subtree && name === undefined) {
      throw invalidField(
        "subtree",
        "needs a name, the top of the subtree (such as example.com)",
        "to flush every cached answer, leave out both",
      );
    }
    // Audited before it runs: a flush the trail cannot record is refused
    // (a full disk answers 503), so no flush goes unrecorded.
    await deps.store.recordOperation({
      ...requestOrigin(c),
      action: "flush",
      key: { kind: "Cache", namespace: "", name: name ?? ALL },
      after: { subtree },
    });
    const flushed = await offMainThread(
      c,
      deps.flushCache(name as string | undefined, { subtree }),
    );
    deps.logger?.info("Cache flushed through the API", {
      ...requestOrigin(c),
      name: name ?? ALL,
      subtree,
      removed: flushed,
    });
    return ok(c, {
      flushed,
      ...(name !== undefined && { name }),
      subtree,
    });
  });
}

function checkFlushName(
  name: unknown,
  subtree: boolean,
): asserts name is string {
  if (typeof name !== "string" || name === "") {
    throw invalidField("name", "must be a domain name such as ads.example.com");
  }
  if (name === "." && !subtree) {
    throw invalidField(
      "name",
      '"." names the root: with subtree: true it flushes everything',
      "to flush every cached answer, leave out name",
    );
  }
  const problem = checkDomainName(name);
  if (problem !== null) throw invalidField("name", problem);
}

function refreshRoutes(routes: RoutesTable, deps: OperationsRoutesDeps) {
  const source = z.object({
    url: z.string(),
    ok: z.boolean(),
    changed: z.boolean().optional(),
    fetchedAt: z.string().optional(),
    error: z.string().optional(),
  });
  const outcome = z.object({
    namespace: z.string(),
    name: z.string(),
    state: z.enum(["fetched", "pending", "nothing"]).openapi({
      description:
        "fetched: every source was tried, see `sources`; pending: still downloading, " +
        "BlockList.status will show the outcome; nothing: no enabled URL source to fetch",
    }),
    sources: z.array(source),
  });
  routes.define({
    method: "post",
    path: `/api/v1/namespaces/{namespace}/blocklists/{name}${REFRESH_SUFFIX}`,
    guard: { resource: "blocklists", verb: "refresh" },
    openapi: {
      tags: ["BlockList"],
      summary: "Fetch a block list's sources now",
      description:
        "Downloads every enabled URL source of the BlockList now, not at its next refreshInterval " +
        "(a conditional GET: an unchanged list costs a 304). Answers when the downloads end, " +
        "or 202 when they take longer than a few seconds.",
      request: {
        params: z.object({ namespace: z.string(), name: z.string() }),
      },
      responses: answers("The downloads ended", outcome, 200, {
        202: {
          description:
            "Still downloading; BlockList.status will show the outcome",
          content: {
            "application/json": {
              schema: z.object({ data: outcome, took_ms: z.number() }),
            },
          },
        },
      }),
    },
  }, async (c) => {
    const key = refreshTarget(c);
    const list = await deps.store.get(key);
    const base = { namespace: key.namespace, name: key.name };
    const sources =
      (list.spec as { sources?: { url?: string; enabled?: boolean }[] })
        ?.sources ?? [];
    if (!sources.some((s) => s.url !== undefined && s.enabled !== false)) {
      return ok(c, { ...base, state: "nothing", sources: [] });
    }
    await deps.store.recordOperation({
      ...requestOrigin(c),
      action: "refresh",
      key,
    });
    const result = await offMainThread(
      c,
      withinWait(
        deps.refreshList(key),
        deps.refreshWaitMs ?? DEFAULT_REFRESH_WAIT_MS,
      ),
    );
    if (result === undefined) {
      return ok(c, { ...base, state: "pending", sources: [] }, 202);
    }
    if (result.state === "notLeader") {
      throw new ApiError(
        "unavailable",
        `This node does not fetch block lists: ${result.leader} does`,
        { hint: `send the refresh to ${result.leader}` },
      );
    }
    if (result.state === "unknown") {
      throw new ApiError(
        "not_found",
        `The list fetcher does not hold BlockList "${key.namespace}/${key.name}" yet`,
        {
          hint: "it was just created: retry in a moment",
          headers: { "Retry-After": "1" },
        },
      );
    }
    return ok(c, { ...base, state: "fetched", sources: result.sources });
  });
}

/**
 * The BlockList a `…/{name}:refresh` path names. Hono reads `{name}:refresh`
 * as one parameter (named "name:refresh" by the path the table registers),
 * so the suffix is checked and cut here.
 */
function refreshTarget(c: Context): ObjectKey {
  const raw = c.req.param("name") ?? c.req.param(`name${REFRESH_SUFFIX}`) ??
    "";
  if (!raw.endsWith(REFRESH_SUFFIX) || raw === REFRESH_SUFFIX) {
    throw new ApiError(
      "not_found",
      `No route ${c.req.method} ${c.req.path}`,
    );
  }
  return {
    kind: "BlockList",
    namespace: c.req.param("namespace")!,
    name: raw.slice(0, -REFRESH_SUFFIX.length),
  };
}

/** `promise`'s value, or undefined when it takes longer than `ms`. */
async function withinWait<T>(
  promise: Promise<T>,
  ms: number,
): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
