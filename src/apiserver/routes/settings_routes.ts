/**
 * The cluster settings: every key with its value and where it comes from
 * (GET), and changes as a JSON merge patch over the kudurru.yaml shape
 * (PATCH). Host-only keys and keys the environment sets are refused by
 * name; the answer says which keys applied at once and which need a
 * restart (cluster_settings.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type ClusterSettings,
  SettingsPatchError,
} from "../cluster_settings.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { requestOrigin } from "../request_origin.ts";
import { answers } from "./openapi_parts.ts";

const settingSchema = z.object({
  key: z.string(),
  value: z.unknown(),
  source: z.enum(["env", "api", "file"]),
  help: z.string(),
  type: z.string().openapi({
    description:
      "boolean, enum, integer, number, string, duration, size, address, list of …, map of …",
  }),
  default: z.unknown().optional().openapi({
    description: "The default as kudurru.yaml spells it; absent for secrets",
  }),
  defaultText: z.string().optional().openapi({
    description: "The default in words, when it depends on the machine",
  }),
  allowed: z.array(z.string()).optional().openapi({
    description: "The values an enum allows",
  }),
  env: z.string().openapi({
    description: "The environment variable that sets the key",
  }),
  hostOnly: z.boolean(),
  envLocked: z.boolean(),
  restartRequired: z.boolean().openapi({
    description: "A change applies at the next start",
  }),
  live: z.boolean(),
  pendingRestart: z.boolean(),
}).openapi("Setting");

/** The settings routes. */
export function settingsRoutes(settings: ClusterSettings) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/settings",
      guard: { resource: "config", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "List the settings",
        description:
          "Every key of kudurru.yaml with its effective value (secrets " +
          "masked), where it comes from, whether the API may change it, " +
          "and what the UI needs to offer it: help, type, default, " +
          "allowed values, environment variable, and whether a change " +
          "applies at once or at the next start.",
        responses: answers(
          "OK",
          z.object({
            settings: z.array(settingSchema),
            sections: z.record(z.string(), z.string()).openapi({
              description: "Each top-level section's help",
            }),
            overrides: z.record(z.string(), z.unknown()),
            resourceVersion: z.string().optional(),
          }),
        ),
      },
    }, (c) => {
      const view = settings.view();
      if (view.resourceVersion !== undefined) {
        c.header("ETag", `"${view.resourceVersion}"`);
      }
      return ok(c, view);
    });

    routes.define({
      method: "patch",
      path: "/api/v1/settings",
      guard: { resource: "settings", verb: "update" },
      openapi: {
        tags: ["Node"],
        summary: "Change settings",
        description:
          "A JSON merge patch (RFC 7396) in the shape of kudurru.yaml, " +
          'e.g. `{"cache": {"maxTTL": "1h"}}`; `null` removes the API\'s ' +
          "value, so the file's applies again. Host-only keys and keys " +
          "set by the environment are refused. Changes are kept in " +
          "state.db and win over the file. `applied` keys took effect at " +
          "once; `restartRequired` keys take effect at the next start.",
        request: {
          body: {
            required: true,
            content: {
              "application/merge-patch+json": {
                schema: z.record(z.string(), z.unknown()),
              },
            },
          },
        },
        responses: answers(
          "OK",
          z.object({
            applied: z.array(z.string()),
            restartRequired: z.array(z.string()),
            overrides: z.record(z.string(), z.unknown()),
          }),
        ),
      },
    }, async (c) => {
      const patch = objectBody(
        await jsonBody(c, ["application/merge-patch+json", "application/json"]),
      );
      try {
        const result = await settings.patch(patch, {
          origin: requestOrigin(c),
          ...ifMatchOf(c),
        });
        return ok(c, result);
      } catch (error) {
        if (!(error instanceof SettingsPatchError)) throw error;
        throw new ApiError("invalid", error.message, {
          details: { issues: error.issues },
          hint:
            "GET /api/v1/settings lists every key and whether it may change",
        });
      }
    });
  };
}

function ifMatchOf(c: Context): { ifMatch?: string } {
  const header = c.req.header("if-match")?.trim();
  if (header === undefined || header === "" || header === "*") return {};
  return { ifMatch: header.replace(/^"|"$/g, "") };
}
