/**
 * "Why": how a question would be answered now, and what decided it (the
 * client's groups, the policies and lists that apply, the zone, the rule
 * that matched, the upstream group), asked of a listener's data plane.
 * Nothing is forwarded, counted or logged.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { canonicalName, checkDomainName } from "../../dns/name.ts";
import { isIpAddress } from "../../dns/ip_text.ts";
import { qtypeFromText } from "../../dns/wire/constants.ts";
import type { ExplainedQuestion } from "../../pipeline/data_plane.ts";
import type { Explanation } from "../../pipeline/explanation.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import { offMainThread } from "../busy_budget.ts";
import { errorResponses } from "./openapi_parts.ts";

export interface WhyRoutesDeps {
  /** The caller's address, the client explained for when none is named. */
  clientAddress(c: Context): string;
  /** A listener's explanation; undefined when no listener can give one. */
  explain(
    question: ExplainedQuestion,
    client: string,
  ): Promise<Explanation | undefined>;
}

const explanationSchema = z.object({
  name: z.string(),
  type: z.string(),
  client: z.string(),
  status: z.string(),
  stage: z.string(),
  rcode: z.string(),
  answer: z.string(),
  groups: z.array(z.string()),
  policies: z.array(z.string()),
  blockLists: z.array(z.string()),
  allowLists: z.array(z.string()),
  zone: z.string().optional(),
  list: z.string().optional(),
  rule: z.string().optional(),
  route: z.object({
    group: z.string(),
    rule: z.string(),
    suffix: z.string().optional(),
  }).optional(),
  malformed: z.string().optional(),
}).openapi("Explanation");

/** The why route. */
export function whyRoutes(deps: WhyRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/why",
      guard: { resource: "why", verb: "get" },
      openapi: {
        tags: ["Queries"],
        summary: "Explain how a question would be answered",
        description:
          "Runs the question through the data plane as if `client` had " +
          "asked it (the caller's address when absent), without " +
          "forwarding, counting or logging it: the answer, the stage that " +
          "gave it, and what decided it.",
        request: {
          query: z.object({
            name: z.string().openapi({ example: "ads.example.com" }),
            type: z.string().optional().openapi({ example: "AAAA" }),
            client: z.string().optional().openapi({ example: "192.168.1.20" }),
          }),
        },
        responses: {
          200: {
            description: "The explanation",
            content: {
              "application/json": {
                schema: z.object({
                  data: explanationSchema,
                  took_ms: z.number(),
                }),
              },
            },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const question = questionOf(c.req.query("name"), c.req.query("type"));
      const client = c.req.query("client") ?? deps.clientAddress(c);
      if (!isIpAddress(client)) {
        throw new ApiError(
          "bad_request",
          `client "${client}" is not an IP address`,
        );
      }
      const explanation = await offMainThread(
        c,
        deps.explain(question, client),
      );
      if (explanation === undefined) {
        throw new ApiError(
          "unavailable",
          "No DNS listener is running to explain the question",
        );
      }
      return ok(c, explanation);
    });
  };
}

/** The question from the query string, or a validation error saying why not. */
function questionOf(
  name: string | undefined,
  type: string | undefined,
): ExplainedQuestion {
  if (name === undefined || name === "") {
    throw new ApiError("bad_request", "name is required");
  }
  const problem = checkDomainName(name);
  if (problem !== null) throw new ApiError("bad_request", problem);
  const code = qtypeFromText(type ?? "A");
  if (code === undefined) {
    throw new ApiError("bad_request", `type "${type}" is not a type`);
  }
  return { name: canonicalName(name), type: code };
}
