/**
 * The query parameters of the query-log and stats routes, read strictly:
 * an unknown or malformed parameter is a 400 naming it (a misspelled
 * filter must not silently match everything). Time windows (`since`,
 * `until`, read as `kudurru querylog --since` reads them:
 * src/querylog/time_text.ts) and the filters of `kudurru querylog`
 * (client, domain, status, type, rcode) and the node, with the same
 * meaning (src/querylog/search_filters.ts), and their OpenAPI
 * descriptions. Shared by querylog_routes.ts, querylog_search.ts,
 * querylog_tail.ts and stats_routes.ts.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { qtypeFromText } from "../../dns/wire/constants.ts";
import { rcodeFromName } from "../../dns/wire/rcode_name.ts";
import { isCidr, isIpAddress } from "../../dns/ip_text.ts";
import { STATUSES } from "../../pipeline/status.ts";
import { HIDDEN_CLIENT } from "../../querylog/event_filter.ts";
import type { EventFilters } from "../../querylog/queries.ts";
import { parseTimeText } from "../../querylog/time_text.ts";
import { ApiError } from "../errors.ts";

/** A 400 naming the query parameter. */
export function badParameter(
  name: string,
  message: string,
  hint?: string,
): ApiError {
  return new ApiError("bad_request", `Query parameter "${name}": ${message}`, {
    ...(hint !== undefined && { hint }),
    details: { parameter: name },
  });
}

/**
 * A request's query parameters, checked against the ones a route knows:
 * another is a 400 naming it (a misspelled filter must not silently match
 * everything). Repeated list parameters (`type=A&type=AAAA`) are joined
 * with commas; other parameters may be given once.
 */
export class QueryParams {
  readonly #values = new Map<string, string>();

  constructor(
    c: Context,
    known: readonly string[],
    lists: readonly string[] = [],
  ) {
    const all = c.req.queries() as Record<string, string[]>;
    for (const [name, values] of Object.entries(all)) {
      if (!known.includes(name)) {
        throw badParameter(
          name,
          "unknown parameter",
          `known: ${known.join(", ")}`,
        );
      }
      if (values.length > 1 && !lists.includes(name)) {
        throw badParameter(name, "given more than once");
      }
      this.#values.set(name, values.join(","));
    }
  }

  /** The value, trimmed; undefined when absent. Given empty: a 400. */
  get(name: string): string | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    const text = value.trim();
    if (text === "") throw badParameter(name, "needs a value");
    return text;
  }
}

/** A whole number in [1, max], `fallback` when absent. */
export function countParam(
  params: QueryParams,
  name: string,
  max: number,
  fallback: number,
): number {
  const text = params.get(name);
  if (text === undefined) return fallback;
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw badParameter(
      name,
      `must be a whole number from 1 to ${max}, not "${text}"`,
    );
  }
  return n;
}

/** A time parameter (parseTimeText), in ms. */
export function timeParam(
  params: QueryParams,
  name: string,
  now: number,
): number | undefined {
  const given = params.get(name);
  if (given === undefined) return undefined;
  // An offset's "+" sent unencoded arrives as a space: "…T12:00:00 05:30".
  const text = given.replace(
    /(\d\d:\d\d(?::\d\d(?:\.\d+)?)?) (\d\d:?\d\d)$/,
    "$1+$2",
  );
  const time = parseTimeText(text, now);
  if ("error" in time) throw badParameter(name, time.error);
  return time.ms;
}

/** `since` and `until` (each when given); `since` must come first. */
export function windowParams(
  params: QueryParams,
  now: number,
): { since?: number; until?: number } {
  const since = timeParam(params, "since", now);
  const until = timeParam(params, "until", now);
  if (since !== undefined && until !== undefined && since >= until) {
    throw badParameter(
      "since",
      `${params.get("since")} is not before until (${params.get("until")})`,
    );
  }
  return {
    ...(since !== undefined && { since }),
    ...(until !== undefined && { until }),
  };
}

/** `since`/`until` as the OpenAPI document describes them. */
export const windowQuery = {
  since: z.string().optional().openapi({
    description:
      'Oldest time (inclusive): a duration back from now ("90m", "24h", "7d") or a date ("2030-01-01", "2030-01-01T12:00:00Z"); a date or time without a zone is the server\'s local time',
  }),
  until: z.string().optional().openapi({
    description: "Newest time (exclusive), written like `since`",
  }),
};

// ---------------------------------------------------------------------------
// Filters

/** The filters of a search or tail: `kudurru querylog`'s, and the node. */
export interface Filters extends EventFilters {
  node?: string;
}

export const FILTER_PARAMS = [
  "client",
  "domain",
  "status",
  "type",
  "rcode",
  "node",
  "upstream",
] as const;
export const LIST_PARAMS = ["status", "type", "rcode", "upstream"];

/** The filters of `params`, each checked (a 400 names a bad one). */
export function filterParams(params: QueryParams): Filters {
  const filters: Filters = {};
  const client = params.get("client");
  if (client !== undefined) {
    if (client !== HIDDEN_CLIENT && !isIpAddress(client) && !isCidr(client)) {
      throw badParameter(
        "client",
        `takes an address or a CIDR prefix such as 192.0.2.0/24 (or "${HIDDEN_CLIENT}"), not "${client}"`,
      );
    }
    filters.client = client;
  }
  const domain = params.get("domain");
  if (domain !== undefined) {
    if (domain.length > 1024) throw badParameter("domain", "is too long");
    filters.domain = domain;
  }
  const status = params.get("status");
  if (status !== undefined) {
    const known = new Set<string>(["blocked", ...STATUSES]);
    for (const word of words(status)) {
      if (!known.has(word)) {
        throw badParameter(
          "status",
          `unknown status "${word}"`,
          `use one of: ${[...known].join(", ")}`,
        );
      }
    }
    filters.status = words(status).join(",");
  }
  const types = codes(
    params,
    "type",
    qtypeFromText,
    "a type such as AAAA or 65",
  );
  if (types !== undefined) filters.qtypes = types;
  const rcodes = codes(
    params,
    "rcode",
    rcodeFromName,
    "a response code such as NXDOMAIN or 3",
  );
  if (rcodes !== undefined) filters.rcodes = rcodes;
  const node = params.get("node");
  if (node !== undefined) filters.node = node;
  const upstream = params.get("upstream");
  if (upstream !== undefined) {
    if (upstream.length > 1024) throw badParameter("upstream", "is too long");
    filters.upstream = words(upstream).join(",");
  }
  return filters;
}

const words = (text: string) =>
  text.split(",").map((w) => w.trim()).filter(Boolean);

function codes(
  params: QueryParams,
  name: string,
  code: (word: string) => number | undefined,
  what: string,
): number[] | undefined {
  const text = params.get(name);
  if (text === undefined) return undefined;
  const list = words(text);
  if (list.length === 0) throw badParameter(name, "needs a value");
  return list.map((word) => {
    const n = code(word);
    if (n === undefined) {
      throw badParameter(name, `takes ${what}, not "${word}"`);
    }
    return n;
  });
}

/** The filter parameters as the OpenAPI document describes them. */
export const filterQuery = {
  client: z.string().optional().openapi({
    description:
      'The client: an address (an IPv4 address also finds its IPv4-mapped spelling), a CIDR prefix such as 192.0.2.0/24, or "hidden" (clients stored under a privacy mode)',
  }),
  domain: z.string().optional().openapi({
    description:
      'A part of the name ("doubleclick"), or, starting with "*." or ".", a domain and every name below it ("*.example.com")',
  }),
  status: z.string().optional().openapi({
    description:
      `Statuses, comma-separated (or repeated); "blocked" means blocked_list and blocked_service. One of: ${
        STATUSES.join(", ")
      }`,
  }),
  type: z.string().optional().openapi({
    description:
      "Question types, comma-separated (or repeated): names or numbers (AAAA, 65, TYPE65)",
  }),
  rcode: z.string().optional().openapi({
    description:
      "Response codes, comma-separated (or repeated): names or numbers (NXDOMAIN, 3)",
  }),
  node: z.string().optional().openapi({
    description: "The node that answered, exactly",
  }),
  upstream: z.string().optional().openapi({
    description:
      'Upstreams as the log names them ("default/9.9.9.9", as the statistics list them), comma-separated (or repeated)',
  }),
};
