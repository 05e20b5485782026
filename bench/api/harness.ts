/**
 * What the API benchmarks share: the API built over a Store and served
 * in-process on real HTTP (`buildApi` + `Deno.serve` on 127.0.0.1:0), a
 * small client that logs in and makes a token, timing and percentiles, and
 * the summary table.
 */
import { configSchema } from "../../src/config/schema.ts";
import { memoryLogger } from "../../src/log/logger.ts";
import {
  buildApi,
  type BuiltApi,
  type SharedRouteDeps,
} from "../../src/apiserver/api_server.ts";
import type { RouteModule } from "../../src/apiserver/app.ts";
import type { Store } from "../../src/store/store.ts";

/** The first admin's password in every API benchmark. */
export const ADMIN_PASSWORD = "a benchmark passphrase, long enough";
/** A fixed encryption key (sessions, TOTP secrets): the benchmarks keep no secrets. */
export const ENCRYPTION_KEY =
  "5b1f0c6e2d8a4f7b9c3e1a0d6f2b8c4e7a9d1f3b5c7e9a2d4f6b8c0e2a4d6f81";

export function print(text = ""): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

/** Prints `message` on stderr and exits with status 2 (a bad option). */
export function usageError(message: string): never {
  Deno.stderr.writeSync(new TextEncoder().encode(message + "\n"));
  Deno.exit(2);
}

/** The API served on 127.0.0.1 on a port the kernel picks. */
export interface ServedApi extends AsyncDisposable {
  api: BuiltApi;
  url: string;
}

/**
 * Builds the API over `store` (the admin's password known, the encryption
 * key fixed) and serves it with Deno.serve on 127.0.0.1:0. `clientFrom`
 * lets a benchmark say which address a request comes from (the login
 * limiter counts failures per address): only the login benchmark uses it.
 * The API's CPU share is not limited (`listeners.api.cpuPercent: 100`):
 * these benchmarks time what a request costs, not how long it waits.
 */
export async function serveApi(opts: {
  store: Store;
  dataDir: string;
  config?: Record<string, unknown>;
  extraRoutes?: (shared: SharedRouteDeps) => RouteModule[];
  clientFrom?: (request: Request) => string | undefined;
  /** @default 0, a port the kernel picks */
  port?: number;
}): Promise<ServedApi> {
  const config = configSchema.parse({
    node: { dataDir: opts.dataDir, name: "bench" },
    listeners: { api: { cpuPercent: 100 } },
    ...opts.config,
  });
  const env: Record<string, string> = {
    KUDURRU_ENCRYPTION_KEY: ENCRYPTION_KEY,
    KUDURRU_ADMIN_PASSWORD: ADMIN_PASSWORD,
  };
  const api = await buildApi({
    config,
    store: opts.store,
    logger: memoryLogger(),
    env: (name) => env[name],
    hostname: "bench",
    tls: false,
    ...(opts.extraRoutes !== undefined && { extraRoutes: opts.extraRoutes }),
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    onListen: () => {},
  }, (request, info) => {
    const from = opts.clientFrom?.(request);
    return api.app.fetch(
      request,
      from === undefined
        ? info
        : { ...info, remoteAddr: { ...info.remoteAddr, hostname: from } },
    );
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    api,
    url: `http://127.0.0.1:${addr.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** Logs in as the admin at `base` and makes an API token; returns its text. */
export async function adminToken(
  base: string,
  password = ADMIN_PASSWORD,
): Promise<string> {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  const loginText = await login.text();
  if (login.status !== 200) {
    throw new Error(`Cannot log in at ${base}: ${login.status} ${loginText}`);
  }
  const cookie = /^([^;]+)/.exec(login.headers.get("set-cookie") ?? "")?.[1];
  const csrf = JSON.parse(loginText).data.csrf as string;
  const made = await fetch(`${base}/api/v1/tokens`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie: cookie ?? "",
      "x-kudurru-csrf": csrf,
    },
    body: JSON.stringify({ description: "API benchmark" }),
  });
  const madeText = await made.text();
  if (made.status !== 201) {
    throw new Error(`Cannot make a token: ${made.status} ${madeText}`);
  }
  return JSON.parse(madeText).data.token as string;
}

/** One timed GET: wall-clock ms until the whole body is read, and the body. */
export async function timedGet(
  url: string,
  token: string,
): Promise<{ ms: number; status: number; text: string }> {
  const began = performance.now();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  return { ms: performance.now() - began, status: res.status, text };
}

/** A GET that must answer 200: the parsed `data`, and the time. */
export async function getData(
  url: string,
  token: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ ms: number; serverMs: number; bytes: number; data: any }> {
  const { ms, status, text } = await timedGet(url, token);
  if (status !== 200) {
    throw new Error(`GET ${url}: ${status} ${text.slice(0, 500)}`);
  }
  const body = JSON.parse(text);
  return { ms, serverMs: body.took_ms, bytes: text.length, data: body.data };
}

/** The nearest-rank percentile `p` (0-100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1]!;
}

/**
 * Rows of text padded into columns; the first row is the header. Columns
 * in `left` (the first, and the last unless `lastLeft` is false) are
 * aligned left, the others (figures) right.
 */
export function table(
  rows: readonly (readonly string[])[],
  lastLeft = true,
): string[] {
  const count = rows[0]!.length;
  const widths = rows[0]!.map((_, i) =>
    Math.max(...rows.map((r) => (r[i] ?? "").length))
  );
  const left = (i: number) => i === 0 || (lastLeft && i === count - 1);
  return rows.map((r) =>
    r.map((cell, i) =>
      left(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)
    ).join("  ").trimEnd()
  );
}

/** `x` ms with one decimal. */
export const ms = (x: number) => x.toFixed(1);

/** The CPU model, for the summary (`model name` of /proc/cpuinfo). */
export function cpuModel(): string {
  try {
    const text = Deno.readTextFileSync("/proc/cpuinfo");
    const model = /^model name\s*:\s*(.*)$/m.exec(text)?.[1] ?? "unknown";
    const cpus = text.match(/^processor\s*:/gm)?.length ?? 0;
    return `${model.trim()}, ${cpus} CPUs`;
  } catch {
    return "unknown";
  }
}

/** A whole number option in [min, max], or exits with a message. */
export function intOption(
  name: string,
  text: string,
  min: number,
  max: number,
): number {
  const n = Number(text);
  if (!Number.isFinite(n) || Math.trunc(n) !== n || n < min || n > max) {
    usageError(
      `--${name} takes a whole number from ${min} to ${max}, not "${text}"`,
    );
  }
  return n;
}
