/**
 * The API's docs page: Scalar's API reference over /api/v1/openapi.json at
 * GET /api/docs, its script at GET /api/docs/scalar.js from the bundle
 * embedded in the binary (README.md here says where it comes from), so the
 * page loads nothing from elsewhere and works where nothing off-site is
 * reachable or allowed.
 */
import { z } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { Context } from "hono";
import type { RouteModule } from "../app.ts";
import bundleGz from "./scalar_standalone.js.gz" with { type: "bytes" };

/** The page. */
export const DOCS_PATH = "/api/docs";
/** The Scalar bundle the page loads. */
export const BUNDLE_PATH = "/api/docs/scalar.js";
/**
 * The page names the spec and the bundle relative to itself (it is at
 * /api/docs), so it works under listeners.api.pathPrefix too.
 */
const SPEC_FROM_PAGE = "v1/openapi.json";
const BUNDLE_FROM_PAGE = "docs/scalar.js";

/**
 * Scalar's settings: none of its features that reach its own services.
 * `proxyUrl` stays unset: then "try it" requests go straight to this API,
 * not through Scalar's proxy.
 */
const PAGE = {
  pageTitle: "kudurru API",
  url: SPEC_FROM_PAGE,
  // Scalar's fonts load from its CDN; the browser's own do instead.
  withDefaultFonts: false,
  telemetry: false,
  // The button opens the document in Scalar's hosted client.
  hideClientButton: true,
  // The toolbar links to Scalar's dashboard and products.
  showDeveloperTools: "never",
  // The AI chat and MCP generation are services of Scalar's.
  agent: { disabled: true },
  mcp: { disabled: true },
} as const;

/**
 * The docs page's policy in place of the API's: scripts from here or
 * carrying this response's nonce (the page's inline start-up script), and
 * nothing from elsewhere.
 *
 * Inline styles are allowed, on this page only: Scalar's bundle gives its
 * main stylesheet the nonce (from `meta[property=csp-nonce]`), but adds
 * other <style> elements without it (theme, toasts) and style attributes in
 * markup (highlighted code), which no nonce covers; without them code
 * samples and themes break. A nonce beside 'unsafe-inline' would make
 * browsers ignore 'unsafe-inline', so style-src has none. Styles cannot run
 * script, and script-src stays nonce-only.
 */
export function docsPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** GET /api/docs and GET /api/docs/scalar.js. */
export function apiDocsRoutes(): RouteModule {
  return (routes) => {
    routes.define({
      method: "get",
      path: DOCS_PATH,
      guard: {
        public: true,
        because: "it shows the API's own description, which is public",
      },
      openapi: {
        tags: ["Docs"],
        summary: "This documentation, as a page for browsers",
        responses: {
          200: {
            description: "The page; it loads the OpenAPI document",
            content: { "text/html": { schema: z.string() } },
          },
        },
      },
    }, docsPage);

    routes.define({
      method: "get",
      path: BUNDLE_PATH,
      guard: { public: true, because: "the public docs page loads it" },
      openapi: {
        tags: ["Docs"],
        summary: "The script of the documentation page (Scalar)",
        responses: {
          200: {
            description: "gzip-encoded when the client accepts gzip",
            content: { "text/javascript": { schema: z.string() } },
          },
          304: { description: "The client's copy is current (ETag)" },
        },
      },
    }, bundle);
  };
}

async function docsPage(c: Context): Promise<Response> {
  const nonce = crypto.getRandomValues(new Uint8Array(16)).toBase64();
  c.header("Content-Security-Policy", docsPolicy(nonce));
  // The bundle's URL names its content, so the browser may keep it for long.
  const cdn = `${BUNDLE_FROM_PAGE}?v=${(await bundleTag()).slice(0, 16)}`;
  const answer = await Scalar({ ...PAGE, cdn, nonce })(c, async () => {});
  if (!(answer instanceof Response)) throw new Error("Scalar gave no page");
  return answer;
}

async function bundle(c: Context): Promise<Response> {
  const gzip = acceptsGzip(c.req.header("accept-encoding"));
  const etag = `"${await bundleTag()}${gzip ? ".gz" : ""}"`;
  c.header("Content-Type", "text/javascript; charset=utf-8");
  c.header("Cache-Control", "public, max-age=31536000, immutable");
  c.header("ETag", etag);
  c.header("Vary", "Accept-Encoding");
  if (matchesTag(c.req.header("if-none-match"), etag)) {
    return c.body(null, 304);
  }
  if (gzip) {
    c.header("Content-Encoding", "gzip");
    return c.body(bundleGz);
  }
  // Rare (curl, some proxies): unzip per request rather than keep 4 MB.
  return c.body(
    new Blob([bundleGz]).stream().pipeThrough(new DecompressionStream("gzip")),
  );
}

let tag: Promise<string> | undefined;

/** SHA-256 of the embedded bundle, hex: its ETag and its version in the page. */
function bundleTag(): Promise<string> {
  tag ??= crypto.subtle.digest("SHA-256", bundleGz).then((d) =>
    new Uint8Array(d).toHex()
  );
  return tag;
}

/** Whether Accept-Encoding allows gzip (`gzip`, `x-gzip` or `*`, not q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.split(";").map((s) => s.trim());
    const weight = params.find((p) => /^q=/i.test(p));
    q.set(
      coding.toLowerCase(),
      weight === undefined ? 1 : Number(weight.slice(2)),
    );
  }
  const given = q.get("gzip") ?? q.get("x-gzip") ?? q.get("*");
  return given !== undefined && given > 0;
}

/** Whether If-None-Match names `etag` (weakly, as RFC 9110 says for GET). */
function matchesTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((t) => {
    const given = t.trim().replace(/^W\//, "");
    return given === "*" || given === etag;
  });
}
