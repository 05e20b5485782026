/**
 * The local control socket: a small HTTP server on a Unix socket in the data
 * directory (`<dataDir>/kudurru.sock`, mode 0600), through which CLI
 * commands on the same machine reach the running server (for now `kudurru
 * cache flush`). Whoever may write the data directory may use it, which is
 * who may already edit state.db; nothing listens on the network. The HTTP
 * API with login and RBAC replaces it for remote use later.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";

/** The socket's file name in the data directory. */
export const CONTROL_SOCKET_FILE = "kudurru.sock";

/** What the running server can be asked to do. */
export interface ControlActions {
  /** Drops cached answers (all, or for `name`); resolves to how many went. */
  flushCache(name?: string): Promise<number>;
}

export interface ControlSocket {
  readonly path: string;
  stop(): Promise<void>;
}

/** A request the CLI sends; the server answers JSON. */
export interface FlushCacheRequest {
  name?: string;
}

/** A name the flush accepts: 1-253 characters of a domain name. */
const NAME_RE = /^[A-Za-z0-9_.-]{1,253}$/;

/** Largest request body read: a flush request is a few dozen octets. */
export const MAX_CONTROL_BODY = 16 * 1024;

/**
 * Listens on `<dataDir>/kudurru.sock`. A socket file left by a server that
 * crashed is replaced; one that answers belongs to a running kudurru on the
 * same data directory, and then this one does without (logged), rather than
 * take it over.
 */
export async function startControlSocket(
  dataDir: string,
  actions: ControlActions,
  logger: Logger,
): Promise<ControlSocket | undefined> {
  const path = join(dataDir, CONTROL_SOCKET_FILE);
  if (await answers(path)) {
    logger.warn(
      "Another kudurru answers on the control socket of this data directory; running without one",
      { path },
    );
    return undefined;
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
      "Cannot open the control socket; `kudurru cache flush` works only offline",
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
  const { pathname } = new URL(req.url);
  if (pathname !== "/v1/cache/flush") {
    return json(404, { error: `no such control endpoint: ${pathname}` });
  }
  if (req.method !== "POST") {
    return json(405, { error: "use POST" });
  }
  const text = await boundedText(req, MAX_CONTROL_BODY);
  if (text === undefined) {
    return json(413, {
      error: `the body is over ${MAX_CONTROL_BODY} octets`,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(400, { error: "the body must be JSON" });
  }
  const parsed = flushRequestOf(body);
  if (typeof parsed === "string") return json(400, { error: parsed });
  const removed = await actions.flushCache(parsed.name);
  logger.info("cache flushed", { name: parsed.name ?? "(all)", removed });
  return json(200, { removed });
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
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "the body must be a JSON object";
  }
  const unknown = Object.keys(body).filter((k) => k !== "name");
  if (unknown.length > 0) return `unknown field "${unknown[0]}"`;
  const name = (body as { name?: unknown }).name;
  if (name === undefined) return {};
  if (typeof name !== "string") return '"name" must be a string';
  const problem = flushNameProblem(name);
  return problem === undefined ? { name } : problem;
}

/**
 * What is wrong with `name` as the name of a flush, or undefined: 1-253
 * characters of letters, digits, `_`, `-` and dots, labels of 1-63.
 */
export function flushNameProblem(name: string): string | undefined {
  const labels = name.replace(/\.$/, "").split(".");
  if (
    !NAME_RE.test(name) || labels.some((l) => l.length === 0 || l.length > 63)
  ) {
    return `"${name}" is not a domain name such as "ads.example.com"`;
  }
  return undefined;
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/** True when a kudurru serves `dataDir` now: its control socket answers. */
export function controlSocketAnswers(dataDir: string): Promise<boolean> {
  return answers(join(dataDir, CONTROL_SOCKET_FILE));
}

/** True when something accepts connections on the socket. */
async function answers(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

/** The running server is not there (no socket, or nobody listening). */
export class ServerNotRunningError extends Error {
  constructor(readonly path: string) {
    super(`no kudurru server listens on ${path}`);
    this.name = "ServerNotRunningError";
  }
}

/**
 * Asks the server on `<dataDir>/kudurru.sock` to flush its cache; resolves
 * to how many entries went.
 *
 * @throws {ServerNotRunningError} when no server listens there
 * @throws {Error} with the server's message when it refuses the request
 */
export async function requestCacheFlush(
  dataDir: string,
  name?: string,
): Promise<number> {
  const path = join(dataDir, CONTROL_SOCKET_FILE);
  if (!(await answers(path))) throw new ServerNotRunningError(path);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  try {
    const res = await fetch("http://localhost/v1/cache/flush", {
      method: "POST",
      client,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(name === undefined ? {} : { name }),
    });
    const body = await res.json() as { removed?: number; error?: string };
    if (!res.ok) {
      throw new Error(body.error ?? `the server answered ${res.status}`);
    }
    return body.removed ?? 0;
  } finally {
    client.close();
  }
}
