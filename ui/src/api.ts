/**
 * The UI's client of the HTTP API (docs/api.md): every call goes to
 * `api/v1/…` relative to the page's <base>, so the UI works under
 * listeners.api.pathPrefix. Answers come in the envelope `{data, took_ms}`;
 * errors as `{error: {key, message, hint}}`, which become ApiError. Writes
 * carry the session's CSRF value (from the login answer or auth/status).
 */
import { strings } from "./strings.ts";

/** An error answer of the API, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly hint?: string,
    /** A 403's missing permission. */
    readonly missing?: { resource: string; verb: string; scope: string },
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** What a query string may hold; undefined and "" are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

let csrf: string | undefined;

/** The session's CSRF value, for writes (undefined after logout). */
export function setCsrf(value: string | undefined): void {
  csrf = value;
}

/** Called when an answer says the session is gone (401). */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** `api/v1/<path>?<query>`, relative to the page's base. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return `api/v1/${path.replace(/^\//, "")}${search ? `?${search}` : ""}`;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Sent as If-Match (a resourceVersion). */
  ifMatch?: string;
  /** application/json unless said. */
  contentType?: string;
  signal?: AbortSignal;
}

/** One call; resolves to the envelope's data. */
export async function request<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    const type = opts.contentType ?? "application/json";
    headers["content-type"] = type;
    body = typeof opts.body === "string" && !type.includes("json")
      ? opts.body
      : JSON.stringify(opts.body);
  }
  if (method !== "GET" && csrf !== undefined) headers["x-kudurru-csrf"] = csrf;
  if (opts.ifMatch !== undefined) {
    // An ETag: a resourceVersion in quotes.
    headers["if-match"] = opts.ifMatch.startsWith('"')
      ? opts.ifMatch
      : `"${opts.ifMatch}"`;
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path, opts.query), {
      method,
      headers,
      ...(body !== undefined && { body }),
      credentials: "same-origin",
      ...(opts.signal && { signal: opts.signal }),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      throw error;
    }
    throw new ApiError(
      0,
      "network",
      strings.errors.network,
      strings.errors.networkHint,
    );
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: Record<string, unknown> } | undefined)
      ?.error;
    if (response.status === 401) onUnauthorized();
    throw new ApiError(
      response.status,
      typeof error?.key === "string" ? error.key : `http_${response.status}`,
      typeof error?.message === "string"
        ? error.message
        : `${response.status} ${response.statusText}`,
      typeof error?.hint === "string" ? error.hint : undefined,
      error?.missing as ApiError["missing"],
      error as Record<string, unknown> | undefined,
    );
  }
  return (parsed as { data: T } | undefined)?.data as T;
}

export const get = <T>(path: string, query?: Query, signal?: AbortSignal) =>
  request<T>("GET", path, {
    ...(query && { query }),
    ...(signal && { signal }),
  });
