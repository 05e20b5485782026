/**
 * The web UI (docs/ui.md): the app built into ui/dist and embedded in the
 * program (scripts/build_ui.ts), served by the API server. `GET /` and any
 * other page of the app (`/querylog?client=…`, a link someone shared) get
 * index.html; `GET /assets/…` the files. File names that carry a content
 * hash are kept by browsers for a year; index.html is checked each time,
 * so a new version is seen at the next load. Scripts and styles go out
 * gzipped to browsers that take it (a third of their size), compressed
 * once per file on first use.
 *
 * The app is public, as a login page must be: it holds no data, and every
 * call it makes goes to the API with the caller's own session.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { FILES, INDEX_HTML } from "../../../ui/dist/assets.ts";
import type { RouteModule } from "../app.ts";
import { acceptsGzip } from "../api_docs/docs_route.ts";

/** A name esbuild gave a hash: `app-BYTFWCHK.js`. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
  html: "text/html; charset=utf-8",
};

/** index.html with its <base> under `pathPrefix` ("" or "/dns"). */
export function indexPage(pathPrefix: string): string {
  return INDEX_HTML.replace('<base href="/">', `<base href="${pathPrefix}/">`);
}

/** GET / and GET /assets/{file}. */
export function uiRoutes(pathPrefix: string): RouteModule {
  const page = indexPage(pathPrefix);
  return (routes) => {
    routes.define({
      method: "get",
      path: "/",
      guard: {
        public: true,
        because: "it is the web UI's login page and app, which hold no data",
      },
      openapi: {
        tags: ["Web UI"],
        summary: "The web UI (every page of it: /querylog, /zones, …)",
        responses: {
          200: {
            description: "The app's page",
            content: { "text/html": { schema: z.string() } },
          },
        },
      },
    }, (c) => uiPage(c, page));

    routes.define({
      method: "get",
      path: "/assets/{file}",
      guard: { public: true, because: "the web UI loads them" },
      openapi: {
        tags: ["Web UI"],
        summary: "A file of the web UI (script, styles, icon, licences)",
        request: { params: z.object({ file: z.string() }) },
        responses: {
          200: {
            description: "The file",
            content: { "application/octet-stream": { schema: z.string() } },
          },
          404: { description: "No such file" },
        },
      },
    }, (c) => asset(c, c.req.param("file") ?? ""));
  };
}

/**
 * index.html for a path of the app, served where the API has no route:
 * a GET outside /api/ from a browser (Accept names HTML). Undefined for
 * anything else, which gets the API's 404.
 */
export function uiFallback(
  pathPrefix: string,
): (c: Context) => Response | undefined {
  const page = indexPage(pathPrefix);
  return (c) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return undefined;
    if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/assets/")) {
      return undefined;
    }
    if (!(c.req.header("accept") ?? "").includes("text/html")) return undefined;
    return uiPage(c, page);
  };
}

function uiPage(c: Context, page: string): Response {
  c.header("Content-Type", TYPES.html!);
  c.header("Cache-Control", "no-cache");
  return c.body(page);
}

async function asset(c: Context, file: string): Promise<Response> {
  const path = `assets/${file}`;
  const bytes = FILES.get(path);
  if (bytes === undefined) {
    c.header("Content-Type", "text/plain; charset=utf-8");
    return c.body("no such file\n", 404);
  }
  const extension = file.slice(file.lastIndexOf(".") + 1);
  c.header("Content-Type", TYPES[extension] ?? "application/octet-stream");
  c.header(
    "Cache-Control",
    HASHED.test(file) ? "public, max-age=31536000, immutable" : "no-cache",
  );
  if (extension !== "js" && extension !== "css") {
    return c.body(bytes as Uint8Array<ArrayBuffer>);
  }
  c.header("Vary", "Accept-Encoding");
  if (!acceptsGzip(c.req.header("accept-encoding"))) {
    return c.body(bytes as Uint8Array<ArrayBuffer>);
  }
  c.header("Content-Encoding", "gzip");
  return c.body(await gzipped(path, bytes));
}

const packed = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** `bytes` gzipped, once per file. */
function gzipped(
  path: string,
  bytes: Uint8Array,
): Promise<Uint8Array<ArrayBuffer>> {
  let done = packed.get(path);
  if (done === undefined) {
    done = new Response(
      new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    ).bytes();
    packed.set(path, done);
  }
  return done;
}
