/**
 * What this node is and how it is doing: its name, version, uptime,
 * listeners, the snapshot it serves and its store (`/node`); the readiness
 * checks with their reasons (`/node/health`, the API's view of
 * /healthz/ready); the effective configuration, secrets masked
 * (`/config`); and the objects loader's last load (`/loader`).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { shownConfig } from "../../config/debug.ts";
import type { Config } from "../../config/schema.ts";
import type { ReadyReport } from "../../health/health.ts";
import type { BoundAddress } from "../../listeners/listeners.ts";
import type { ObjectsStatus } from "../../objects/loader.ts";
import type { StoreInfo } from "../../store/store.ts";
import { VERSION } from "../../version.ts";
import { ok } from "../envelope.ts";
import type { RoutesTable } from "../routes_table.ts";
import type { Permits } from "./objects.ts";
import { answers } from "./openapi_parts.ts";

export interface NodeRoutesDeps {
  /** The configuration the server runs (parsed: durations in ms, sizes in bytes). */
  config: Config;
  /** The file it came from, or null for the embedded defaults. */
  configSource: string | null;
  /** When the server started (ISO 8601). */
  startedAt: string;
  /** Epoch ms. */
  now: () => number;
  storeInfo(): StoreInfo;
  /** The DNS listeners as bound (real ports), and those down now ("addr/transport: why"). */
  dnsListeners(): { bound: readonly BoundAddress[]; down: readonly string[] };
  /** The snapshot the listeners serve; undefined until the first one. */
  snapshot(): { version: number; builtAt: string } | undefined;
  /** Every readiness check now (Health.ready()). */
  readiness(): ReadyReport;
  /** The objects loader's state and last load (ObjectsLoader.status()). */
  loaderStatus(): ObjectsStatus;
  /** What the caller of `c` may do: bindings name people, and only some may see them. */
  permits(c: Context): Promise<Permits>;
}

/** What a configuration answer leaves out for callers who may not list role bindings. */
export const HIDDEN_BINDING_SUBJECTS = "rbac.bindings[].subjects";

/** The node routes. */
export function nodeRoutes(deps: NodeRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/node",
      guard: { resource: "node", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "Describe this node",
        responses: answers("The node", nodeSchema),
      },
    }, (c) => ok(c, describeNode(deps)));

    routes.define({
      method: "get",
      path: "/api/v1/node/health",
      guard: { resource: "node", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "Readiness checks with their reasons",
        description:
          "What /healthz/ready decides on, check by check. Answers 200 whether ready or not: " +
          "`ready` says which.",
        responses: answers("The checks", readySchema),
      },
    }, (c) => ok(c, deps.readiness()));

    routes.define({
      method: "get",
      path: "/api/v1/config",
      guard: { resource: "config", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "The effective configuration, secrets masked",
        description:
          "Durations and sizes as text, as the file writes them. The subjects of `rbac.bindings` " +
          "name people: they are left out unless the caller may list rolebindings, and `hidden` says so.",
        responses: answers(
          "The configuration and where it came from",
          z.object({
            source: z.string().nullable().openapi({
              description: "The file, or null for the embedded defaults",
            }),
            startedAt: z.string(),
            config: z.record(z.string(), z.unknown()),
            hidden: z.array(z.string()).optional(),
          }),
        ),
      },
    }, async (c) => {
      const mayListBindings = (await deps.permits(c))(
        "rolebindings",
        "list",
        { kind: "cluster" },
      );
      const config = shownConfig(deps.config) as Record<string, unknown>;
      const hide = !mayListBindings && deps.config.rbac.bindings.length > 0;
      return ok(c, {
        source: deps.configSource,
        startedAt: deps.startedAt,
        config: hide ? withoutBindingSubjects(config) : config,
        ...(hide && { hidden: [HIDDEN_BINDING_SUBJECTS] }),
      });
    });

    routes.define({
      method: "get",
      path: "/api/v1/loader",
      guard: { resource: "loader", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "The objects loader's last load",
        description:
          "The sources it read (the config file's `objects:`, objectsDir), what it applied, " +
          "and every diagnosis with its severity, reason, message and hint.",
        responses: answers("The loader's state", loaderSchema),
      },
    }, (c) => ok(c, deps.loaderStatus()));
  };
}

/** The /node answer. */
export function describeNode(deps: NodeRoutesDeps) {
  const now = deps.now();
  const { config } = deps;
  const listeners = deps.dnsListeners();
  const snapshot = deps.snapshot();
  return {
    name: config.node.name,
    version: VERSION,
    startedAt: deps.startedAt,
    uptimeSeconds: secondsSince(deps.startedAt, now),
    dataDir: config.node.dataDir,
    objectsDir: config.objectsDir,
    listeners: {
      dns: byTransport(listeners.bound),
      down: [...listeners.down],
      api: config.listeners.api.address,
      ops: config.listeners.ops.address,
      metrics: config.listeners.metrics.address,
    },
    snapshot: snapshot === undefined ? null : {
      version: snapshot.version,
      builtAt: snapshot.builtAt,
      ageSeconds: secondsSince(snapshot.builtAt, now),
    },
    store: deps.storeInfo(),
  };
}

/** `{udp: ["0.0.0.0:53"], tcp: ["0.0.0.0:53"]}`: one address per socket group. */
function byTransport(bound: readonly BoundAddress[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const b of bound) {
    const host = b.hostname.includes(":") ? `[${b.hostname}]` : b.hostname;
    const address = `${host}:${b.port}`;
    const list = out[b.transport] ??= [];
    if (!list.includes(address)) list.push(address);
  }
  return out;
}

function secondsSince(iso: string, now: number): number {
  const then = Date.parse(iso);
  return Number.isFinite(then)
    ? Math.max(0, Math.floor((now - then) / 1000))
    : 0;
}

/** The shown config with each binding's role and scope, and no subjects. */
function withoutBindingSubjects(
  config: Record<string, unknown>,
): Record<string, unknown> {
  const rbac = config.rbac as
    | { bindings?: Record<string, unknown>[] }
    | undefined;
  return {
    ...config,
    rbac: {
      ...rbac,
      bindings: (rbac?.bindings ?? []).map(({ subjects: _, ...rest }) => rest),
    },
  };
}

const nodeSchema = z.object({
  name: z.string(),
  version: z.string(),
  startedAt: z.string(),
  uptimeSeconds: z.number().int(),
  dataDir: z.string(),
  objectsDir: z.string(),
  listeners: z.object({
    dns: z.record(z.string(), z.array(z.string())).openapi({
      description: "Bound addresses per transport (udp, tcp, …), real ports",
    }),
    down: z.array(z.string()).openapi({
      description: "Listeners not serving now, and why",
    }),
    api: z.string(),
    ops: z.string(),
    metrics: z.string(),
  }),
  snapshot: z.object({
    version: z.number().int(),
    builtAt: z.string(),
    ageSeconds: z.number().int(),
  }).nullable().openapi({ description: "null until the first snapshot" }),
  store: z.object({
    driver: z.string(),
    schemaVersion: z.number().int(),
    clusterID: z.string(),
    epoch: z.number().int(),
    leader: z.string(),
  }),
});

const readySchema = z.object({
  ready: z.boolean(),
  checks: z.array(z.object({
    name: z.string(),
    ready: z.boolean(),
    reason: z.string().optional(),
  })),
});

const diagnosisSchema = z.object({
  severity: z.enum(["error", "warning", "info"]),
  reason: z.string(),
  source: z.string(),
  document: z.number().int().optional(),
  object: z.string().optional(),
  owner: z.string().optional(),
  fields: z.array(z.string()).optional(),
  message: z.string(),
  hint: z.string().optional(),
});

const loaderSchema = z.object({
  static: z.boolean(),
  dir: z.string().optional(),
  inlineSource: z.string(),
  files: z.array(z.object({
    name: z.string(),
    manager: z.string(),
    read: z.boolean(),
    objects: z.number().int(),
    protected: z.boolean(),
  })),
  lastLoad: z.string().optional(),
  lastLoadDurationSeconds: z.number().optional(),
  loads: z.number().int(),
  watch: z.object({ watching: z.boolean(), attaches: z.number().int() }),
  counts: z.record(z.string(), z.number().int()).optional(),
  diagnosisCounts: z.object({
    error: z.number().int(),
    warning: z.number().int(),
    info: z.number().int(),
  }),
  diagnoses: z.array(diagnosisSchema),
});
