/**
 * The service account routes: list, create and delete the accounts that
 * own API tokens and never log in.
 */
import { z } from "@hono/zod-openapi";
import { API_VERSION } from "../../api/v1alpha1/meta.ts";
import { ACCOUNTS_MANAGER } from "../../auth/accounts.ts";
import { ok } from "../envelope.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { requestOrigin } from "../request_origin.ts";
import {
  type AccountRoutesDeps,
  anyAnswer,
  field,
  listAll,
} from "./account_parts.ts";
import { errorResponses } from "./openapi_parts.ts";

/** The service account routes. */
export function serviceAccountRoutes(
  routes: RoutesTable,
  deps: AccountRoutesDeps,
): void {
  routes.define(
    {
      method: "get",
      path: "/api/v1/serviceaccounts",
      guard: { resource: "serviceaccounts", verb: "list" },
      openapi: {
        tags: ["Accounts"],
        summary: "List service accounts",
        responses: anyAnswer,
      },
    },
    async (c) => ok(c, { items: await listAll(deps.store, "ServiceAccount") }),
  );
  routes.define({
    method: "post",
    path: "/api/v1/serviceaccounts",
    guard: { resource: "serviceaccounts", verb: "create" },
    openapi: {
      tags: ["Accounts"],
      summary: "Create a service account: it owns tokens and never logs in",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                description: z.string().optional(),
              }),
            },
          },
        },
      },
      responses: { ...anyAnswer, 201: anyAnswer[200] },
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const name = field(body, "name");
    const saved = await deps.store.apply({
      apiVersion: API_VERSION,
      kind: "ServiceAccount",
      metadata: { name },
      spec: {
        description: typeof body.description === "string"
          ? body.description
          : "",
      },
    }, { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) });
    c.header("Location", `/api/v1/serviceaccounts/${name}`);
    return ok(c, saved, 201);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/serviceaccounts/{name}",
    guard: { resource: "serviceaccounts", verb: "delete" },
    openapi: {
      tags: ["Accounts"],
      summary: "Delete a service account (its tokens stop working)",
      request: { params: z.object({ name: z.string() }) },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    await deps.store.delete(
      { kind: "ServiceAccount", namespace: "", name: c.req.param("name")! },
      { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) },
    );
    return c.body(null, 204);
  });
}
