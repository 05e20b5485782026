/**
 * `listeners.api.pathPrefix`: behind a reverse proxy that forwards
 * `https://host/dns/…` without stripping `/dns`, the API answers under the
 * prefix as if it were at the root. Requests outside the prefix are 404.
 */

/** A fetch handler that serves `fetch` under `prefix` ("" serves at the root). */
export function underPrefix<I>(
  prefix: string,
  fetch: (req: Request, info: I) => Response | Promise<Response>,
): (req: Request, info: I) => Response | Promise<Response> {
  const base = normalizePrefix(prefix);
  if (base === "") return fetch;
  return (req, info) => {
    const url = new URL(req.url);
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
      return new Response("not found\n", { status: 404 });
    }
    url.pathname = url.pathname.slice(base.length) || "/";
    return fetch(new Request(url, req), info);
  };
}

/** "/dns/" and "dns" are "/dns"; "" and "/" are "". */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}
