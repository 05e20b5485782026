/**
 * `GET /api/v1/export`: every kudurru.io object the caller may list, as the
 * `kind: List` YAML `kudurru export` writes on a data directory (between
 * the same marker lines, so `restore` and `apply -f` can tell a complete
 * download from a cut-off one), or as JSON. Only the public kinds go out:
 * the API's own kinds (users, service accounts, tokens, role bindings,
 * settings) never do, and TSIG keys are files, not objects; none of the
 * public kinds has a secret field. Each object is checked against its
 * kind's list permission at its zone, as the list routes check it, so a
 * zone-admin's export holds its zones and their record sets.
 *
 * The YAML is streamed a Store page at a time: a first pass counts what
 * the caller may see (the first line names the count), a second writes it.
 * Should the count differ by then (a write in between), the stream stops
 * without its last line, and the download reads as cut short: export again.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import YAML from "yaml";
import { type KindInfo, KINDS } from "../../api/v1alpha1/kinds.ts";
import type { KObject } from "../../api/v1alpha1/meta.ts";
import type { Logger } from "../../log/logger.ts";
import type { Resource } from "../../rbac/permissions.ts";
import { CLUSTER } from "../../rbac/scope.ts";
import { exportFirstLine, exportLastLine } from "../../store/export_marker.ts";
import { safeCopy } from "../../store/snapshot.ts";
import type { Store } from "../../store/store.ts";
import type { BusyBudget } from "../busy_budget.ts";
import { ApiError } from "../errors.ts";
import { requestOrigin } from "../request_origin.ts";
import type { RoutesTable } from "../routes_table.ts";
import { objectScope, type Permits } from "./objects.ts";
import { errorResponses } from "./openapi_parts.ts";
import { fileTime } from "./querylog_export.ts";

/** Objects per Store page (and per streamed part) of an export. */
const EXPORT_PAGE = 500;

export interface ExportRoutesDeps {
  store: Store;
  permits(c: Context): Promise<Permits>;
  now: () => number;
  /** Where a failure half-way through a download is logged. */
  logger: Logger;
  /** The API's CPU share: each page of the stream counts against it. */
  budget: BusyBudget;
}

/** The export route. */
export function exportRoutes(deps: ExportRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/export",
      // Every role that may list any kind may list zones (its own, at
      // least), so this is the least a caller needs; the handler keeps,
      // kind by kind and zone by zone, what the caller may list.
      guard: {
        resource: "dnszones",
        verb: "list",
        scope: () => ({ kind: "any" }),
      },
      openapi: {
        tags: ["Export and restore"],
        summary: "Download every object the caller may list",
        description:
          "The kudurru.io objects (zones, record sets, block lists, client groups, policies) as one " +
          "`kind: List`, each kind and zone kept to what the caller may list. Users, service accounts, " +
          "tokens, role bindings and settings are never in it, nor TSIG keys (files on the server). " +
          "YAML (default) starts with the line `# kudurru export: N items, …` and ends with " +
          "`# end of kudurru export: N items`, as `kudurru export` writes it: a download without " +
          "that last line was cut short. `safe=true` leaves out status and server-set metadata " +
          "(uid, resourceVersion, generation, creationTimestamp).",
        request: {
          query: z.object({
            safe: z.enum(["true", "false"]).optional().openapi({
              description: "Leave out status and server-set metadata",
            }),
            format: z.enum(["yaml", "json"]).optional().openapi({
              description: "yaml (default) or json",
            }),
          }),
        },
        responses: {
          200: {
            description:
              "The objects, as an attachment named kudurru-export-<time>.yaml or .json",
            content: {
              "application/yaml": { schema: z.string() },
              "application/json": {
                schema: z.object({
                  apiVersion: z.literal("v1"),
                  kind: z.literal("List"),
                  items: z.array(z.object({}).passthrough()),
                }),
              },
            },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const safe = booleanParam(c, "safe");
      const format = c.req.query("format") ?? "yaml";
      if (format !== "yaml" && format !== "json") {
        throw new ApiError(
          "bad_request",
          `format must be yaml or json, not "${format}"`,
        );
      }
      const permits = await deps.permits(c);
      const visible = (info: KindInfo, obj: KObject) =>
        permits(info.plural as Resource, "list", objectScope(info, obj));
      const pages = () => visiblePages(deps.store, visible, safe);
      const name = `kudurru-export-${fileTime(deps.now())}.${format}`;
      const { count, any } = await countVisible(pages());
      // As a list answers: nothing to see where there is something is a
      // caller without the right, not an empty server.
      if (count === 0 && any && !permits("dnszones", "list", CLUSTER)) {
        throw new ApiError("forbidden", "Not allowed by the caller's roles", {
          hint: "ask an admin for a role that grants it",
          details: {
            missing: { resource: "dnszones", verb: "list", scope: "cluster" },
          },
        });
      }
      c.header("Content-Disposition", `attachment; filename="${name}"`);
      if (format === "json") {
        c.header("Content-Type", "application/json; charset=utf-8");
        return c.body(textStream(jsonParts(pages()), deps));
      }
      const header = headerComment(requestOrigin(c).actor, deps.now(), safe);
      c.header("Content-Type", "application/yaml; charset=utf-8");
      return c.body(textStream(yamlParts(pages(), count, header), deps));
    });
  };
}

/** `?name=true` or `?name=false` (absent: false). */
function booleanParam(c: Context, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new ApiError("bad_request", `${name} must be true or false`);
}

/** One page of objects a caller may see, and whether the Store held any. */
interface VisiblePage {
  items: KObject[];
  held: number;
}

/** The objects `visible` keeps, kind by kind, one Store page at a time. */
async function* visiblePages(
  store: Store,
  visible: (info: KindInfo, obj: KObject) => boolean,
  safe: boolean,
): AsyncGenerator<VisiblePage> {
  for (const info of KINDS) {
    let token: string | undefined;
    do {
      const page = await store.list(info.kind, {
        limit: EXPORT_PAGE,
        ...(token !== undefined && { continue: token }),
      });
      const items = page.items.filter((o) => visible(info, o));
      yield {
        items: safe ? items.map(safeCopy) : items,
        held: page.items.length,
      };
      token = page.continue;
    } while (token !== undefined);
  }
}

async function countVisible(
  pages: AsyncIterable<VisiblePage>,
): Promise<{ count: number; any: boolean }> {
  let count = 0;
  let any = false;
  for await (const page of pages) {
    count += page.items.length;
    any ||= page.held > 0;
  }
  return { count, any };
}

/** Says whose view an export is and what it leaves out. */
function headerComment(actor: string, now: number, safe: boolean): string {
  return [
    `# Exported through the API at ${
      new Date(now).toISOString()
    } by ${actor}: the objects ${actor} may list.`,
    "# Users, service accounts, tokens, role bindings and settings are never exported,",
    "# nor TSIG keys (files in the server's keys/tsig/); no kind here has a secret field.",
    ...(safe ? ["# Safe: status and server-set metadata are left out."] : []),
  ].map((line) => `${line}\n`).join("");
}

/**
 * The YAML, as `snapshotYaml` writes it, between the marker lines; ends
 * without the last line when the objects no longer number `count`.
 */
async function* yamlParts(
  pages: AsyncIterable<VisiblePage>,
  count: number,
  header: string,
): AsyncGenerator<string> {
  yield exportFirstLine(count) + header + "apiVersion: v1\nkind: List\n";
  if (count === 0) {
    yield "items: []\n" + exportLastLine(0);
    return;
  }
  yield "items:\n";
  let written = 0;
  for await (const page of pages) {
    written += page.items.length;
    if (written > count) break;
    // An item as it is indented under `items:` in the whole document.
    yield page.items.map((o) =>
      YAML.stringify({ items: [o] }).slice("items:\n".length)
    ).join("");
  }
  if (written !== count) {
    throw new Error(
      `the objects changed during the export (${count} counted, ${written} found)`,
    );
  }
  yield exportLastLine(count);
}

async function* jsonParts(
  pages: AsyncIterable<VisiblePage>,
): AsyncGenerator<string> {
  yield '{"apiVersion":"v1","kind":"List","items":[';
  let first = true;
  for await (const page of pages) {
    if (page.items.length === 0) continue;
    yield (first ? "\n" : ",\n") +
      page.items.map((o) => JSON.stringify(o)).join(",\n");
    first = false;
  }
  yield "\n]}\n";
}

/**
 * `parts` as a body, one part per pull, each within the API's share; a
 * failure half-way is logged and cuts the body short.
 */
function textStream(
  parts: AsyncGenerator<string>,
  deps: { logger: Logger; budget: BusyBudget },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await deps.budget.wait();
        const next = await deps.budget.run(() => parts.next());
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        deps.logger.error("Export failed half-way", { error });
        controller.error(error);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}
