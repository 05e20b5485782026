/**
 * HTTP to a kudurru API for the commands that talk to a server (`login`,
 * `api`): the server's URL checked, a private CA trusted through
 * Deno.createHttpClient, redirects refused (they would carry the token
 * elsewhere), and the failures people meet (nothing listening, a
 * certificate not trusted, an error answer) said in words that say what to
 * do.
 */
import { resolve } from "node:path";
import { UsageError } from "./command.ts";

/** Where a server is and how to trust it. */
export interface ApiTarget {
  server: string;
  caFile?: string | undefined;
}

/** What one request carries besides its method and path. */
export interface ApiRequest {
  /** An API token, sent as `Authorization: Bearer`. */
  token?: string;
  /** A session cookie (`name=value`) and its CSRF value, during login. */
  session?: { cookie: string; csrf?: string };
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
}

/** An error answer in the API's envelope, or what stood in for one. */
export interface ApiFailure {
  status: number;
  key?: string;
  message: string;
  hint?: string;
  issues?: { path: string; message: string }[];
  /** What a 403 lacks: the permission to ask an admin for. */
  missing?: { resource: string; verb: string; scope: string };
  retryAfterSeconds?: number;
  totpRequired?: boolean;
}

/**
 * `text` as a server's base URL: http or https, without a query, a
 * fragment or a trailing slash (a path is kept: the API may sit under a
 * prefix behind a proxy).
 *
 * @throws {UsageError} when it is not such a URL
 */
export function normalizeServer(command: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `kudurru ${command}: --server "${text}" is not a URL (such as https://dns.example.net:8080)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(
      `kudurru ${command}: --server must be an http:// or https:// URL, not "${text}"`,
    );
  }
  if (url.search !== "" || url.hash !== "" || url.username || url.password) {
    throw new UsageError(
      `kudurru ${command}: --server is the API's address only, without a query, a fragment or credentials`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** True for a server on this machine, where plain HTTP stays off the network. */
export function isLoopback(server: string): boolean {
  const host = new URL(server).hostname;
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}

/** `path` made absolute, so a context keeps working from another directory. */
export function absoluteCaFile(path: string): string {
  return resolve(path);
}

/** A connection to one server; close it (or `using` it) when done. */
export class ApiClient implements Disposable {
  readonly server: string;
  readonly #client: Deno.HttpClient | undefined;

  private constructor(server: string, client: Deno.HttpClient | undefined) {
    this.server = server;
    this.#client = client;
  }

  /**
   * Opens a client for `target`, trusting the CA of `caFile` besides the
   * system's.
   *
   * @throws {Error} when the CA file cannot be read or is not PEM
   */
  static async open(target: ApiTarget): Promise<ApiClient> {
    if (target.caFile === undefined) {
      return new ApiClient(target.server, undefined);
    }
    let pem;
    try {
      pem = await Deno.readTextFile(target.caFile);
    } catch (err) {
      throw new Error(
        `cannot read the CA file "${target.caFile}": ${messageOf(err)}`,
        { cause: err },
      );
    }
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
      throw new Error(
        `the CA file "${target.caFile}" holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      );
    }
    return new ApiClient(
      target.server,
      Deno.createHttpClient({ caCerts: [pem] }),
    );
  }

  /**
   * Sends one request to `path` (which starts with /api/).
   *
   * @throws {Error} when the server cannot be reached or its certificate is
   *   not trusted, saying what to do
   */
  async request(
    method: string,
    path: string,
    req: ApiRequest = {},
  ): Promise<Response> {
    const headers = new Headers({ accept: "application/json" });
    if (req.token !== undefined) {
      headers.set("authorization", `Bearer ${req.token}`);
    }
    if (req.session !== undefined) {
      headers.set("cookie", req.session.cookie);
      if (req.session.csrf !== undefined) {
        headers.set("x-kudurru-csrf", req.session.csrf);
      }
    }
    if (req.body !== undefined) {
      headers.set("content-type", req.contentType ?? "application/json");
    }
    let res: Response;
    try {
      res = await fetch(`${this.server}${path}`, {
        method,
        headers,
        redirect: "manual",
        ...(req.body !== undefined && { body: req.body }),
        ...(req.signal !== undefined && { signal: req.signal }),
        ...(this.#client !== undefined && { client: this.#client }),
      });
    } catch (err) {
      throw new Error(this.#unreachable(err), { cause: err });
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const to = res.headers.get("location");
      throw new Error(
        `${this.server} redirects${
          to ? ` to ${to}` : ""
        }: use the address the API answers on as --server (a redirect is not followed, so the token stays with the server it was made for)`,
      );
    }
    return res;
  }

  #unreachable(err: unknown): string {
    const detail = causeChain(err);
    if (err instanceof DOMException && err.name === "TimeoutError") {
      return `${this.server} did not answer in time`;
    }
    if (
      /certificate|UnknownIssuer|CertNotValidForName|self.signed/i.test(detail)
    ) {
      return `the TLS certificate of ${this.server} is not trusted (${
        lastPart(detail)
      }): log in with --ca-file FILE, the PEM certificate of the CA that signed it${
        /NotValidForName/i.test(detail)
          ? ", and use a --server name the certificate is for"
          : ""
      }`;
    }
    return `cannot reach ${this.server} (${
      lastPart(detail)
    }): check the address and that kudurru's API listener (listeners.api) is running there`;
  }

  [Symbol.dispose](): void {
    this.#client?.close();
  }
}

/**
 * The error of a non-2xx answer: the envelope's key, message, hint and
 * issues, or the status and the start of the text when it is not one (a
 * proxy's error page).
 */
export async function failureOf(res: Response): Promise<ApiFailure> {
  const text = await res.text();
  const failure: ApiFailure = {
    status: res.status,
    message: `${res.status} ${res.statusText}`.trim(),
  };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const start = text.trim().slice(0, 200);
    if (start !== "") failure.message += `: ${start}`;
    return failure;
  }
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (typeof error !== "object" || error === null) return failure;
  if (typeof error.key === "string") failure.key = error.key;
  if (typeof error.message === "string") failure.message = error.message;
  if (typeof error.hint === "string") failure.hint = error.hint;
  if (Array.isArray(error.issues)) {
    failure.issues = error.issues.filter((i): i is {
      path: string;
      message: string;
    } => typeof i?.path === "string" && typeof i?.message === "string");
  }
  const missing = error.missing as Record<string, unknown> | undefined;
  if (
    typeof missing?.resource === "string" &&
    typeof missing.verb === "string" && typeof missing.scope === "string"
  ) {
    failure.missing = {
      resource: missing.resource,
      verb: missing.verb,
      scope: missing.scope,
    };
  }
  if (typeof error.retryAfterSeconds === "number") {
    failure.retryAfterSeconds = error.retryAfterSeconds;
  }
  if (error.totpRequired === true) failure.totpRequired = true;
  return failure;
}

/**
 * A failure as lines for stderr: the message, the permission a 403
 * lacks, the hint, the issues.
 */
export function describeFailure(failure: ApiFailure): string {
  const head = `${failure.message}${
    failure.key ? ` (${failure.status} ${failure.key})` : ""
  }`;
  const lines = [head];
  const missing = failure.missing;
  if (missing) {
    lines.push(
      `missing: ${missing.verb} on ${missing.resource} (scope ${missing.scope})`,
    );
  }
  if (failure.hint) lines.push(`hint: ${failure.hint}`);
  for (const issue of failure.issues ?? []) {
    lines.push(`  ${issue.path}: ${issue.message}`);
  }
  return lines.join("\n");
}

/** The `data` of a JSON envelope, or undefined when the body is not one. */
export async function dataOf(res: Response): Promise<unknown> {
  try {
    return ((await res.json()) as { data?: unknown } | null)?.data;
  } catch {
    return undefined;
  }
}

/** The end of a fetch error's chain, which names the actual fault. */
function lastPart(detail: string): string {
  const parts = detail.split(/:\s+/);
  return parts.slice(-2).join(": ");
}

/**
 * The messages of `err` and its causes: fetch's own is only "fetch failed",
 * the fault (refused, a certificate) is in its cause.
 */
function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err; e !== undefined && parts.length < 5;) {
    parts.push(messageOf(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ");
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
