/**
 * The local control socket: a small HTTP server on a Unix socket in the data
 * directory (`<dataDir>/kudurru.sock`, mode 0600), through which CLI
 * commands on the same machine reach the running server (`kudurru cache
 * flush`; `config get` and `blocking status` ask it for the configuration
 * it started with; `kudurru admin` resets passwords, makes API tokens and
 * lists users through it). Only the server's user (and root) may use it:
 * the file is mode 0600, so whoever can connect may administer the server
 * without a login. Nothing listens on the network; the HTTP API with login
 * and RBAC is for remote use. The admin routes and their client side are in
 * control_socket_admin.ts; the helpers both use are here.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { badRequestUrl, requestPath } from "../metrics/http_listener.ts";
import type { FlushOptions } from "../pipeline/flushed_names.ts";
import type { AdminActions } from "./admin_actions.ts";
import { ADMIN_PREFIX, adminRoute } from "./control_socket_admin.ts";

/** The socket's file name in the data directory. */
export const CONTROL_SOCKET_FILE = "kudurru.sock";

/** What the running server can be asked to do. */
export interface ControlActions {
  /**
   * Drops cached answers (all, or for `name`, with `subtree` for the names
   * below it too); resolves to how many went.
   */
  flushCache(name?: string, opts?: FlushOptions): Promise<number>;
  /** The configuration the server started with (secrets masked). */
  runningConfig?(): RunningConfig;
  /** Local administration (`kudurru admin`) on the server's Store. */
  admin?: AdminActions;
}

/** `GET /v1/config`: what the server read when it started. */
export interface RunningConfig {
  /** The file it read, or null for the embedded defaults. */
  source: string | null;
  /** When it started (ISO 8601). */
  startedAt: string;
  /**
   * The effective configuration as JSON, secrets masked, durations and
   * sizes as text ("5s", "64MiB"; debug.ts shownConfig).
   */
  config: unknown;
}

export interface ControlSocket {
  readonly path: string;
  stop(): Promise<void>;
}

/** A request the CLI sends; the server answers JSON. */
export interface FlushCacheRequest {
  name?: string;
  /** The names below `name` too (`kudurru cache flush NAME --subtree`). */
  subtree?: boolean;
}

/** A name the flush accepts: 1-253 characters of a domain name. */
const NAME_RE = /^[A-Za-z0-9_.-]{1,253}$/;

/**
 * Largest request body read: a flush request is a few dozen octets, an
 * admin request at most a password (1024 octets) or 32 token scopes.
 */
export const MAX_CONTROL_BODY = 16 * 1024;

/**
 * Listens on `<dataDir>/kudurru.sock`. A socket file left by a server that
 * crashed is replaced; one that answers belongs to another kudurru on the
 * same data directory, and then this one refuses to start (serve's lock on
 * the data directory normally stops it earlier).
 *
 * @throws {Error} when another kudurru answers on the socket, or one that
 *   this user may not use is in the way
 */
export async function startControlSocket(
  dataDir: string,
  actions: ControlActions,
  logger: Logger,
): Promise<ControlSocket | undefined> {
  const path = join(dataDir, CONTROL_SOCKET_FILE);
  const found = await probeSocket(path);
  if (found.state === "answers") {
    throw new Error(
      `Another kudurru serves the data directory "${dataDir}" (it answers on ${path}): stop it, or give this one its own node.dataDir`,
    );
  }
  if (found.state === "denied") {
    throw new Error(
      `Cannot take over the control socket ${path}: permission denied; another user's kudurru may serve this data directory (if none runs, remove the file)`,
    );
  }
  await Deno.remove(path).catch(() => {});
  let server: Deno.HttpServer<Deno.UnixAddr>;
  try {
    server = Deno.serve(
      { path, onListen: () => {} },
      (req) => route(req, actions, logger),
    );
  } catch (err) {
    logger.warn(
      "Cannot open the control socket; `kudurru cache flush`, `config get`, `blocking status` and `admin` cannot reach this server",
      {
        path,
        error: err,
      },
    );
    return undefined;
  }
  await Deno.chmod(path, 0o600).catch(() => {});
  return {
    path,
    async stop() {
      await server.shutdown();
      await Deno.remove(path).catch(() => {});
    },
  };
}

async function route(
  req: Request,
  actions: ControlActions,
  logger: Logger,
): Promise<Response> {
  const pathname = requestPath(req);
  if (pathname === undefined) return badRequestUrl();
  if (pathname === "/v1/config" && actions.runningConfig) {
    if (req.method !== "GET") return json(405, { error: "use GET" });
    return json(200, actions.runningConfig());
  }
  if (pathname.startsWith(ADMIN_PREFIX) && actions.admin) {
    return await adminRoute(req, pathname, actions.admin, logger);
  }
  if (pathname !== "/v1/cache/flush") return noSuchEndpoint(pathname);
  if (req.method !== "POST") {
    return json(405, { error: "use POST" });
  }
  const body = await jsonBody(req);
  if (body instanceof Response) return body;
  const parsed = flushRequestOf(body);
  if (typeof parsed === "string") return json(400, { error: parsed });
  const subtree = parsed.subtree === true;
  const removed = await actions.flushCache(parsed.name, { subtree });
  logger.info("Cache flushed", {
    name: parsed.name ?? "(all)",
    subtree,
    removed,
  });
  return json(200, { removed });
}

/** The answer to a path no route serves. */
export function noSuchEndpoint(pathname: string): Response {
  return json(404, { error: `no such control endpoint: ${pathname}` });
}

/** The parsed JSON body, or the answer that refuses it (413, 400). */
export async function jsonBody(req: Request): Promise<unknown> {
  const text = await boundedText(req, MAX_CONTROL_BODY);
  if (text === undefined) {
    return json(413, {
      error: `the body is over ${MAX_CONTROL_BODY} octets`,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    return json(400, { error: "the body must be JSON" });
  }
}

/**
 * The body as text, or undefined once it passes `max` octets: whoever may
 * use the socket must not be able to make the server buffer gigabytes.
 */
async function boundedText(
  req: Request,
  max: number,
): Promise<string | undefined> {
  if (Number(req.headers.get("content-length") ?? 0) > max) return undefined;
  if (req.body === null) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.length;
    if (size > max) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** The request, or what is wrong with it. */
function flushRequestOf(body: unknown): FlushCacheRequest | string {
  const fields = objectOf(body, ["name", "subtree"]);
  if (typeof fields === "string") return fields;
  const { name, subtree } = fields;
  if (subtree !== undefined && typeof subtree !== "boolean") {
    return '"subtree" must be true or false';
  }
  if (name === undefined) {
    return subtree === true ? '"subtree" needs a "name"' : {};
  }
  if (typeof name !== "string") return '"name" must be a string';
  const problem = flushNameProblem(name, subtree === true);
  if (problem !== undefined) return problem;
  return subtree === true ? { name, subtree } : { name };
}

/**
 * What is wrong with `name` as the name of a flush, or undefined: 1-253
 * characters of letters, digits, `_`, `-` and dots, labels of 1-63. The
 * root `.` names a flush of a subtree only: that of every name.
 */
export function flushNameProblem(
  name: string,
  subtree = false,
): string | undefined {
  if (name === ".") {
    return subtree
      ? undefined
      : '"." names the root; to flush everything, give no name (or "." with --subtree)';
  }
  const labels = name.replace(/\.$/, "").split(".");
  if (
    !NAME_RE.test(name) || labels.some((l) => l.length === 0 || l.length > 63)
  ) {
    return `"${name}" is not a domain name such as "ads.example.com"`;
  }
  return undefined;
}

/** A JSON answer. */
export function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/**
 * `body` as an object with only the `known` fields, or what is wrong: a
 * field this server does not know is refused, never ignored, so a client
 * newer than the server learns that its request was not understood.
 */
export function objectOf(
  body: unknown,
  known: readonly string[],
  where = "the body",
): Record<string, unknown> | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return `${where} must be a JSON object`;
  }
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    return where === "the body"
      ? `unknown field "${unknown[0]}"`
      : `unknown field "${unknown[0]}" in ${where}`;
  }
  return body as Record<string, unknown>;
}

/** True when a kudurru serves `dataDir` now: its control socket answers. */
export async function controlSocketAnswers(dataDir: string): Promise<boolean> {
  return (await probeSocket(join(dataDir, CONTROL_SOCKET_FILE))).state ===
    "answers";
}

/** What connecting to the control socket found. */
export type SocketProbe =
  | { state: "answers" }
  /** No socket (ENOENT), or nobody listening on it (ECONNREFUSED). */
  | { state: "absent" }
  /** EACCES: the socket (or its directory) belongs to another user. */
  | { state: "denied" }
  /** Anything else: it cannot be told whether a server runs. */
  | { state: "error"; error: unknown };

/**
 * Tries the socket at `path`. A missing file is not connected to at all, so
 * a process that may not open Unix sockets can still tell that none is
 * there.
 */
export async function probeSocket(path: string): Promise<SocketProbe> {
  try {
    await Deno.lstat(path);
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return { state: "answers" };
  } catch (err) {
    return classifyConnectError(err);
  }
}

/** How a failed stat or connect of the control socket reads. */
export function classifyConnectError(err: unknown): SocketProbe {
  if (
    err instanceof Deno.errors.NotFound ||
    err instanceof Deno.errors.ConnectionRefused
  ) {
    return { state: "absent" };
  }
  if (err instanceof Deno.errors.PermissionDenied) return { state: "denied" };
  return { state: "error", error: err };
}

/** The running server is not there (no socket, or nobody listening). */
export class ServerNotRunningError extends Error {
  constructor(readonly path: string) {
    super(`no kudurru server listens on ${path}`);
    this.name = "ServerNotRunningError";
  }
}

/** The socket is there, but this user may not use it (EACCES). */
export class ControlSocketDeniedError extends Error {
  constructor(readonly path: string) {
    super(
      `cannot reach the running server: run as the server's user (permission denied on ${path})`,
    );
    this.name = "ControlSocketDeniedError";
  }
}

/**
 * Connects to `<dataDir>/kudurru.sock`, or says why not.
 *
 * @throws {ServerNotRunningError} when no server listens there
 * @throws {ControlSocketDeniedError} when this user may not use the socket
 * @throws {Error} for anything else (never taken for "not running")
 */
export async function reachServer(dataDir: string): Promise<string> {
  const path = join(dataDir, CONTROL_SOCKET_FILE);
  const found = await probeSocket(path);
  switch (found.state) {
    case "answers":
      return path;
    case "absent":
      throw new ServerNotRunningError(path);
    case "denied":
      throw new ControlSocketDeniedError(path);
    case "error": {
      const why = found.error instanceof Error
        ? found.error.message
        : String(found.error);
      throw new Error(
        `cannot tell whether a server runs: ${path}: ${why}`,
        { cause: found.error },
      );
    }
  }
}

/** One request to the server on `path`; the parsed JSON body and status. */
export async function controlRequest(
  path: string,
  endpoint: string,
  init: RequestInit,
): Promise<{ status: number; body: unknown }> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    const res = await fetch(`http://localhost${endpoint}`, {
      ...init,
      client,
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: text.trim() || `the server answered ${res.status}` };
    }
    return { status: res.status, body };
  } finally {
    client.close();
  }
}

/**
 * Asks the server on `<dataDir>/kudurru.sock` to flush its cache; resolves
 * to how many entries went. `subtree` goes only when true: a server too old
 * to know it refuses it ("unknown field") rather than flush one name.
 *
 * @throws {ServerNotRunningError} when no server listens there
 * @throws {ControlSocketDeniedError} when this user may not use the socket
 * @throws {Error} with the server's message when it refuses the request
 */
export async function requestCacheFlush(
  dataDir: string,
  name?: string,
  opts: FlushOptions = {},
): Promise<number> {
  const path = await reachServer(dataDir);
  const { status, body } = await controlRequest(path, "/v1/cache/flush", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ...(name !== undefined && { name }),
      ...(opts.subtree === true && { subtree: true }),
    }),
  });
  const answer = body as { removed?: number; error?: string };
  if (status !== 200) {
    throw new Error(answer.error ?? `the server answered ${status}`);
  }
  return answer.removed ?? 0;
}

/** What `askRunningServer` found out. */
export type RunningServer =
  | { state: "running"; path: string; running: RunningConfig }
  /** No server runs on the data directory. */
  | { state: "absent"; path: string }
  /** A server may run, but what it uses cannot be known; `why` says why. */
  | { state: "unknown"; path: string; why: string };

/**
 * The configuration the server running on `dataDir` started with, or why
 * it cannot be known. Never throws.
 */
export async function askRunningServer(
  dataDir: string,
): Promise<RunningServer> {
  const socket = join(dataDir, CONTROL_SOCKET_FILE);
  try {
    const path = await reachServer(dataDir);
    const { status, body } = await controlRequest(path, "/v1/config", {
      method: "GET",
    });
    if (status === 404) {
      return {
        state: "unknown",
        path,
        why: "the running server is older and cannot say (restart it)",
      };
    }
    const running = body as Partial<RunningConfig> & { error?: string };
    if (status !== 200 || typeof running.startedAt !== "string") {
      return {
        state: "unknown",
        path,
        why: running.error ?? `the server answered ${status}`,
      };
    }
    return { state: "running", path, running: running as RunningConfig };
  } catch (err) {
    if (err instanceof ServerNotRunningError) {
      return { state: "absent", path: socket };
    }
    return {
      state: "unknown",
      path: socket,
      why: err instanceof Error ? err.message : String(err),
    };
  }
}
