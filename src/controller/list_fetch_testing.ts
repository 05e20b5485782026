/**
 * Test helpers of the list fetcher: a real HTTP server on 127.0.0.1 whose
 * routes serve list bodies with ETags and Last-Modified, 304s, errors, delays
 * and hanging responses, and which records every request it gets; and a
 * harness that runs fetchers against it with a memory store.
 */
import { join } from "node:path";
import type { BlockList, BlockListStatus } from "../api/v1alpha1/blocklist.ts";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  type ListFetcher,
  type ListFetcherOptions,
  startListFetcher,
} from "./list_fetcher.ts";
import { TEMP_MARKER } from "../blocking/list_files.ts";
import { pause } from "../async/pause.ts";

export interface Route {
  body?: string | Uint8Array<ArrayBuffer>;
  /** @default 200 */
  status?: number;
  etag?: string;
  lastModified?: string;
  contentType?: string;
  /** Wait before answering (aborted when the client goes away). */
  delayMs?: number;
  /** Never answer; the request ends when the client gives up. */
  hang?: boolean;
  /** Send the body as a stream of this many bytes per chunk, without Content-Length. */
  chunkBytes?: number;
  /** With chunkBytes: after this many bytes, stop sending until the client goes away. */
  stallAfter?: number;
}

export interface SeenRequest {
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  userAgent: string | null;
}

/** A list server; `await using` or close() it. */
export class ListServer {
  readonly routes = new Map<string, Route>();
  readonly requests: SeenRequest[] = [];
  active = 0;
  maxActive = 0;
  #closing = new AbortController();
  #server: Deno.HttpServer<Deno.NetAddr>;

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req, info) => this.#handle(req, info),
    );
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.#server.addr.port}${path}`;
  }

  /** Requests for one path. */
  seen(path: string): SeenRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async #handle(
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ): Promise<Response> {
    const path = new URL(req.url).pathname;
    this.requests.push({
      path,
      ifNoneMatch: req.headers.get("if-none-match"),
      ifModifiedSince: req.headers.get("if-modified-since"),
      userAgent: req.headers.get("user-agent"),
    });
    const route = this.routes.get(path);
    if (!route) return new Response("not found", { status: 404 });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    // The request ends when the client goes away (or the server closes).
    const ended = new AbortController();
    info.completed.catch(() => {}).finally(() => ended.abort());
    const gone = AbortSignal.any([ended.signal, this.#closing.signal]);
    try {
      if (route.hang) await pause(2 ** 30, gone);
      if (route.delayMs) await pause(route.delayMs, gone);
    } finally {
      this.active--;
    }
    return this.#respond(req, route, gone);
  }

  #respond(req: Request, route: Route, gone: AbortSignal): Response {
    const headers = new Headers({
      "content-type": route.contentType ?? "text/plain",
    });
    if (route.etag) headers.set("etag", route.etag);
    if (route.lastModified) headers.set("last-modified", route.lastModified);
    const notModified = (route.etag !== undefined &&
      req.headers.get("if-none-match") === route.etag) ||
      (route.etag === undefined && route.lastModified !== undefined &&
        req.headers.get("if-modified-since") === route.lastModified);
    if (notModified) return new Response(null, { status: 304, headers });
    const status = route.status ?? 200;
    const bytes: Uint8Array<ArrayBuffer> = typeof route.body === "string"
      ? new TextEncoder().encode(route.body)
      : route.body ?? new Uint8Array();
    if (!route.chunkBytes) {
      return new Response(status === 204 ? null : bytes, { status, headers });
    }
    const size = route.chunkBytes;
    let at = 0;
    const stallAfter = route.stallAfter ?? Infinity;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (at >= stallAfter) await pause(2 ** 30, gone);
        if (at >= bytes.length || gone.aborted) return controller.close();
        controller.enqueue(bytes.slice(at, at += size));
      },
    });
    return new Response(body, { status, headers });
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A BlockList with the given sources (namespace "default"). */
export function blockList(
  name: string,
  sources: Record<string, unknown>[],
  refreshInterval = "1h",
): BlockList {
  return {
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name, namespace: "default" },
    spec: { sources, refreshInterval } as unknown as BlockList["spec"],
  } as BlockList;
}

/** Names in `dir` that are temporary files a download left behind. */
export async function tempFilesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.includes(TEMP_MARKER)) names.push(join(dir, e.name));
  }
  return names;
}

/** Polls `check` every 10 ms until it returns true, for at most `ms`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
  what = "condition",
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A fetcher's world: a temp lists dir, a list server, a memory store and a movable clock. */
export class FetcherHarness {
  readonly server = new ListServer();
  readonly store = createMemoryStore();
  readonly logger = memoryLogger();
  /** The fetcher's clock; tests move it to make refreshes due. */
  clockMs = Date.parse("2025-07-01T10:00:00Z");
  readonly fetchers: ListFetcher[] = [];

  private constructor(readonly dir: string) {}

  static async create(): Promise<FetcherHarness> {
    return new FetcherHarness(
      await Deno.makeTempDir({ prefix: "kudurru-lists-" }),
    );
  }

  now = (): Date => new Date(this.clockMs);

  /** Starts a fetcher with fast test timings; closed by close(). */
  start(
    opts: Partial<ListFetcherOptions> = {},
  ): ListFetcher {
    const fetcher = startListFetcher({
      store: this.store,
      listsDir: this.dir,
      logger: this.logger,
      now: this.now,
      retryDelaysMs: [5, 10],
      debounceMs: 5,
      maxSleepMs: 20,
      ...opts,
    });
    this.fetchers.push(fetcher);
    return fetcher;
  }

  async apply(list: BlockList): Promise<void> {
    await this.store.apply(list, { manager: "api" });
  }

  async list(name: string): Promise<BlockList> {
    return await this.store.get({
      kind: "BlockList",
      namespace: "default",
      name,
    }) as BlockList;
  }

  async status(name: string): Promise<BlockListStatus | undefined> {
    return (await this.list(name)).status;
  }

  async close(): Promise<void> {
    for (const f of this.fetchers) await f.stop();
    await this.store.close();
    await this.server.close();
    await Deno.remove(this.dir, { recursive: true });
  }
}
