/**
 * The object routes of a server's API for the CLI's object commands: list
 * (every page), get, apply (create or replace), delete, any other JSON
 * call, and answers read as they stream, with the context's token. An error answer becomes an ApiCallError
 * whose message names the context and the server, so a user with several
 * contexts sees which one refused, and a 401 says to log in again.
 */
import type { KindInfo } from "../api/v1alpha1/kinds.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  ApiClient,
  type ApiFailure,
  describeFailure,
  failureOf,
} from "./api_client.ts";
import type { CliContext } from "./contexts.ts";
import { whereOf } from "./target.ts";

/** A request must not hang a command (or a script) forever. */
const REQUEST_TIMEOUT_MS = 30_000;

/** An error answer of the API, with where it came from in the message. */
export class ApiCallError extends Error {
  readonly failure: ApiFailure;
  constructor(context: CliContext, failure: ApiFailure) {
    super(
      `${whereOf(context)}: ${describeFailure(failure)}${
        failure.status === 401
          ? `\nthe token of context "${context.name}" is not accepted: it may have expired or been revoked; run kudurru login --server ${context.server} again`
          : ""
      }`,
    );
    this.name = "ApiCallError";
    this.failure = failure;
  }
}

/** What an apply did to one object. */
export type ApplyResult = "created" | "updated" | "unchanged";

/** The object routes of one context's server; close it (or `using` it). */
export class ApiObjects implements Disposable {
  readonly context: CliContext;
  readonly #client: ApiClient;

  private constructor(context: CliContext, client: ApiClient) {
    this.context = context;
    this.#client = client;
  }

  static async open(context: CliContext): Promise<ApiObjects> {
    return new ApiObjects(context, await ApiClient.open(context));
  }

  /**
   * One JSON request; the envelope's `data` of a 2xx answer (undefined
   * for a 204).
   *
   * @throws {ApiCallError} for an error answer
   * @throws {Error} when the server cannot be reached, naming the context
   */
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    return await this.callText(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
    );
  }

  /**
   * call() with a body already encoded as `contentType` (an export sent
   * as YAML).
   */
  async callText(
    method: string,
    path: string,
    body: string | undefined,
    contentType = "application/json",
  ): Promise<unknown> {
    const res = await this.#send(method, path, {
      ...(body !== undefined && { body, contentType }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (res.status === 204) {
      await res.body?.cancel();
      return undefined;
    }
    const text = await res.text();
    try {
      return (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      throw new Error(
        `${
          whereOf(this.context)
        }: ${method} ${path} answered something that is not JSON: is the context's server a kudurru API?`,
      );
    }
  }

  /**
   * A request whose answer is read as it comes (an export, a live tail):
   * the 2xx Response, without the call's time limit; `signal` ends it.
   *
   * @throws {ApiCallError} for an error answer
   * @throws {Error} when the server cannot be reached, naming the context
   */
  async stream(path: string, signal?: AbortSignal): Promise<Response> {
    return await this.#send("GET", path, {
      ...(signal !== undefined && { signal }),
    });
  }

  /** One request with the context's token; a 2xx Response, else an error. */
  async #send(
    method: string,
    path: string,
    req: { body?: string; contentType?: string; signal?: AbortSignal },
  ): Promise<Response> {
    let res: Response;
    try {
      res = await this.#client.request(method, path, {
        ...req,
        token: this.context.token,
      });
    } catch (err) {
      throw new Error(
        `${whereOf(this.context)}: ${
          err instanceof Error ? err.message : String(err)
        }`,
        { cause: err },
      );
    }
    if (!res.ok) throw new ApiCallError(this.context, await failureOf(res));
    return res;
  }

  /** Every object of `kind` (in `namespace`, or all of them), page by page. */
  async list(kind: KindInfo, namespace?: string): Promise<KObject[]> {
    const base = namespace === undefined
      ? `/api/v1/${kind.plural}`
      : `${collectionPath(kind, namespace)}`;
    const items: KObject[] = [];
    let next: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "1000" });
      if (next !== undefined) query.set("continue", next);
      const page = await this.call("GET", `${base}?${query}`) as {
        items?: KObject[];
        continue?: string;
      };
      items.push(...page.items ?? []);
      next = page.continue;
    } while (next !== undefined);
    return items;
  }

  /** One object. @throws {ApiCallError} 404 not_found when there is none */
  async get(kind: KindInfo, namespace: string, name: string): Promise<KObject> {
    return await this.call("GET", itemPath(kind, namespace, name)) as KObject;
  }

  /**
   * Creates `object`, or replaces the one of its name (PUT without
   * If-Match: the file is the truth, as a local apply takes it). Unchanged
   * when the server kept the resourceVersion it had.
   */
  async apply(
    kind: KindInfo,
    object: KObject,
  ): Promise<{ result: ApplyResult; object: KObject }> {
    const namespace = object.metadata.namespace ?? "";
    const path = itemPath(kind, namespace, object.metadata.name);
    let stored: KObject | undefined;
    try {
      stored = await this.call("GET", path) as KObject;
    } catch (err) {
      if (!(err instanceof ApiCallError) || err.failure.status !== 404) {
        throw err;
      }
    }
    if (stored === undefined) {
      const made = await this.call(
        "POST",
        collectionPath(kind, namespace),
        object,
      ) as KObject;
      return { result: "created", object: made };
    }
    const saved = await this.call("PUT", path, object) as KObject;
    return {
      result: saved.metadata.resourceVersion === stored.metadata.resourceVersion
        ? "unchanged"
        : "updated",
      object: saved,
    };
  }

  async delete(kind: KindInfo, namespace: string, name: string): Promise<void> {
    await this.call("DELETE", itemPath(kind, namespace, name));
  }

  [Symbol.dispose](): void {
    this.#client[Symbol.dispose]();
  }
}

function collectionPath(kind: KindInfo, namespace: string): string {
  return kind.namespaced
    ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind.plural}`
    : `/api/v1/${kind.plural}`;
}

function itemPath(kind: KindInfo, namespace: string, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}
