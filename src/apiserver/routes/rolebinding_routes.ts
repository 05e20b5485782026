/**
 * The role binding routes: list the API's bindings beside the
 * configuration's (read-only), and bind and unbind roles.
 */
import { z } from "@hono/zod-openapi";
import { API_VERSION } from "../../api/v1alpha1/meta.ts";
import { ACCOUNTS_MANAGER } from "../../auth/accounts.ts";
import type { Binding } from "../../rbac/binding.ts";
import { validateBinding } from "../../rbac/validate.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
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

/** The role binding routes. */
export function roleBindingRoutes(
  routes: RoutesTable,
  deps: AccountRoutesDeps,
): void {
  routes.define({
    method: "get",
    path: "/api/v1/rolebindings",
    guard: { resource: "rolebindings", verb: "list" },
    openapi: {
      tags: ["Accounts"],
      summary:
        "List role bindings: the API's, and the configuration's (read-only)",
      responses: anyAnswer,
    },
  }, async (c) =>
    ok(c, {
      items: await listAll(deps.store, "RoleBinding"),
      configured: deps.configuredBindings,
    }));
  routes.define({
    method: "post",
    path: "/api/v1/rolebindings",
    guard: { resource: "rolebindings", verb: "create" },
    openapi: {
      tags: ["Accounts"],
      summary: "Bind a role to users, groups or service accounts",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                role: z.string(),
                scope: z.object({
                  kind: z.string(),
                  name: z.string().optional(),
                }).optional(),
                subjects: z.array(
                  z.object({ kind: z.string(), name: z.string() }),
                ),
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
    const binding = {
      role: body.role,
      scope: body.scope ?? { kind: "cluster" },
      subjects: body.subjects,
    } as Binding;
    const issues = validateBinding(binding);
    if (issues.length > 0) {
      throw new ApiError(
        "invalid",
        `${issues[0]!.path}: ${issues[0]!.message}`,
        { details: { issues } },
      );
    }
    const saved = await deps.store.apply({
      apiVersion: API_VERSION,
      kind: "RoleBinding",
      metadata: { name },
      spec: binding,
    }, { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) });
    deps.bindingsChanged();
    c.header("Location", `/api/v1/rolebindings/${name}`);
    return ok(c, saved, 201);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/rolebindings/{name}",
    guard: { resource: "rolebindings", verb: "delete" },
    openapi: {
      tags: ["Accounts"],
      summary: "Delete a role binding",
      request: { params: z.object({ name: z.string() }) },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    await deps.store.delete(
      { kind: "RoleBinding", namespace: "", name: c.req.param("name")! },
      { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) },
    );
    deps.bindingsChanged();
    return c.body(null, 204);
  });
}
