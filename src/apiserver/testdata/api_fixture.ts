/**
 * The API in-process for tests: a memory Store, a fixed encryption key, a
 * known admin password, and a small client that keeps the session cookie
 * and CSRF value the way a browser and the UI do.
 */
import type { BusyBudget } from "../busy_budget.ts";
import { configSchema } from "../../config/schema.ts";
import { memoryLogger } from "../../log/logger.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";
import type { Store } from "../../store/store.ts";
import {
  buildApi,
  type BuiltApi,
  type SharedRouteDeps,
} from "../api_server.ts";
import type { RouteModule } from "../app.ts";

export const ADMIN_PASSWORD = "correct horse battery staple";
const KEY = "91ab59071731456f3a8fac59786fb4be0f0da307d6a03b2449e8e764693f52e9";

/** A test clock in ms that tests move. */
export class Clock {
  t = Date.parse("2026-06-01T12:00:00Z");
  now = () => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface ApiFixture extends AsyncDisposable {
  api: BuiltApi;
  store: Store;
  clock: Clock;
  dataDir: string;
  /** A client without credentials. */
  client(): ApiClient;
}

/** The API over a memory store with `config` (settings as written in kudurru.yaml). */
export async function apiFixture(
  opts: {
    config?: Record<string, unknown>;
    env?: Record<string, string>;
    adminPassword?: string | null;
    /** Route modules besides accounts and objects, as the server adds them. */
    extraRoutes?: (shared: SharedRouteDeps) => RouteModule[];
    /** The Store to use. @default a memory store */
    store?: Store;
    /** See ApiServerOptions.readOnlyReason. */
    readOnlyReason?: () => string | undefined;
    /** See ApiServerOptions.budget. */
    budget?: BusyBudget;
    /** Cookies as when TLS terminates at the API. @default false */
    tls?: boolean;
  } = {},
): Promise<ApiFixture> {
  const dataDir = await Deno.makeTempDir({ prefix: "kudurru-api-" });
  const clock = new Clock();
  const store = opts.store ??
    createMemoryStore({ now: () => new Date(clock.t) });
  const config = configSchema.parse({
    node: { dataDir, name: "test" },
    ...opts.config,
  });
  const env: Record<string, string> = {
    KUDURRU_ENCRYPTION_KEY: KEY,
    ...(opts.adminPassword !== null &&
      { KUDURRU_ADMIN_PASSWORD: opts.adminPassword ?? ADMIN_PASSWORD }),
    ...opts.env,
  };
  const api = await buildApi({
    config,
    store,
    logger: memoryLogger(),
    env: (name) => env[name],
    hostname: "test",
    tls: opts.tls ?? false,
    now: clock.now,
    ...(opts.extraRoutes !== undefined && { extraRoutes: opts.extraRoutes }),
    ...(opts.readOnlyReason !== undefined &&
      { readOnlyReason: opts.readOnlyReason }),
    ...(opts.budget !== undefined && { budget: opts.budget }),
  });
  return {
    api,
    store,
    clock,
    dataDir,
    client: () => new ApiClient(api),
    async [Symbol.asyncDispose]() {
      await store.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** A decoded answer. */
export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Requests with a session cookie (after login) or a bearer token. */
export class ApiClient {
  cookie: string | undefined;
  csrf: string | undefined;
  token: string | undefined;

  constructor(private readonly api: BuiltApi) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const h = new Headers(headers);
    if (body !== undefined && !h.has("content-type")) {
      h.set("content-type", "application/json");
    }
    if (this.cookie !== undefined) h.set("cookie", this.cookie);
    if (this.csrf !== undefined && !h.has("x-kudurru-csrf")) {
      h.set("x-kudurru-csrf", this.csrf);
    }
    if (this.token !== undefined) {
      h.set("authorization", `Bearer ${this.token}`);
    }
    const res = await this.api.app.request(path, {
      method,
      headers: h,
      ...(body !== undefined &&
        { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const set = res.headers.get("set-cookie");
    if (set !== null) {
      const value = /^([^=]+=[^;]*)/.exec(set)?.[1];
      this.cookie =
        value === undefined || /=;?$/.test(value) || /Max-Age=0/i.test(set)
          ? undefined
          : value;
    }
    const text = await res.text();
    // JSON answers parsed; anything else (a zone file, a profile) as text.
    const json = /json/.test(res.headers.get("content-type") ?? "json");
    return {
      status: res.status,
      headers: res.headers,
      body: text === "" ? undefined : json ? JSON.parse(text) : text,
    };
  }

  /** Logs in and keeps the cookie and CSRF value. */
  async login(user: string, password: string, totp?: string): Promise<Answer> {
    const answer = await this.request("POST", "/api/v1/auth/login", {
      username: user,
      password,
      ...(totp !== undefined && { totp }),
    });
    if (answer.status === 200) this.csrf = answer.body.data.csrf;
    return answer;
  }
}
