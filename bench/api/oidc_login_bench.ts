/**
 * An OpenID Connect login round trip: a real provider (oidc-provider, the
 * tests' own, src/auth/oidc/testdata/test_provider.ts) and kudurru's API,
 * both on 127.0.0.1 over real HTTP in this process, and a browser with a
 * fresh cookie jar per login that follows every redirect:
 *
 *   GET  /api/v1/auth/oidc/corp/login         kudurru: state, nonce, PKCE, pre-auth cookie
 *   ...  the provider's authorize and login   the provider
 *   GET  /api/v1/auth/oidc/corp/callback      kudurru: code exchange at the provider's
 *                                             token endpoint, ID token checks, session
 *
 * Prints p50 / p99 / max of the whole round trip, of kudurru's two steps,
 * and of the provider's part (the rest). Then the CLI's way in: a request
 * (`GET /api/v1/auth/status`) with an ID token of the CLI's client as its
 * bearer, the first time (its signature verified against the provider's
 * keys) and again (the verdict cached), beside the same request with an
 * API token (`kdr_…`).
 *
 *   deno run -A bench/api/oidc_login_bench.ts [--logins 100] [--tokens 50] [--warmup 5]
 */
import { parseArgs } from "node:util";
import {
  Browser,
  CLI_CLIENT_ID,
  cliTokens,
  providerSettings,
  startTestProvider,
} from "../../src/auth/oidc/testdata/test_provider.ts";
import { createMemoryStore } from "../../src/store/memory/memory_store.ts";
import {
  adminToken,
  cpuModel,
  intOption,
  ms,
  percentile,
  print,
  serveApi,
  table,
} from "./harness.ts";

const HELP = `Usage: deno run -A bench/api/oidc_login_bench.ts [options]

  --logins N   timed logins (default 100)
  --tokens N   ID tokens sent as bearers, each twice (default 50)
  --warmup N   untimed logins and tokens first (default 5)
  --help       this text`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    logins: { type: "string", default: "100" },
    tokens: { type: "string", default: "50" },
    warmup: { type: "string", default: "5" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const LOGINS = intOption("logins", values.logins, 1, 10_000);
const TOKENS = intOption("tokens", values.tokens, 1, 10_000);
const WARMUP = intOption("warmup", values.warmup, 0, 100);

const USERS = {
  alice: {
    preferred_username: "alice",
    email: "alice@corp.example",
    email_verified: true,
    groups: ["dns-ops", "staff"],
  },
};

// The provider must know kudurru's redirect URI before kudurru knows the
// provider's issuer: serve a stand-in on the port first, then the API there.
const reserved = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const apiPort = (reserved.addr as Deno.NetAddr).port;
reserved.close();
const apiOrigin = `http://127.0.0.1:${apiPort}`;

await using idp = await startTestProvider(USERS, { apiOrigin });
const dataDir = await Deno.makeTempDir({ prefix: "kudurru-oidc-bench-" });
try {
  const store = createMemoryStore();
  await using served = await serveApi({
    store,
    dataDir,
    port: apiPort,
    config: {
      auth: {
        identityProviders: [
          providerSettings(idp.issuer, { cliClientID: CLI_CLIENT_ID }),
        ],
      },
      rbac: {
        bindings: [{
          role: "operator",
          scope: { kind: "cluster" },
          subjects: [{ kind: "Group", name: "corp:dns-ops" }],
        }],
      },
    },
  });
  const samples = { total: [], start: [], callback: [], provider: [] } as {
    [k in "total" | "start" | "callback" | "provider"]: number[];
  };
  for (let i = 0; i < WARMUP + LOGINS; i++) {
    const one = await login(served.url);
    if (i < WARMUP) continue;
    samples.total.push(one.total);
    samples.start.push(one.start);
    samples.callback.push(one.callback);
    samples.provider.push(one.total - one.start - one.callback);
  }
  const bearer = { first: [], cached: [], apiToken: [] } as {
    [k in "first" | "cached" | "apiToken"]: number[];
  };
  const kdr = await adminToken(served.url);
  for (let i = 0; i < WARMUP + TOKENS; i++) {
    const { id_token } = await cliTokens(idp.issuer, "alice");
    const first = await timedStatus(served.url, id_token, "corp:alice");
    const cached = await timedStatus(served.url, id_token, "corp:alice");
    const api = await timedStatus(served.url, kdr, "admin");
    if (i < WARMUP) continue;
    bearer.first.push(first);
    bearer.cached.push(cached);
    bearer.apiToken.push(api);
  }
  print(`OIDC login round trip: ${LOGINS} logins (${WARMUP} untimed first)`);
  print(`CPU: ${cpuModel()}`);
  print();
  const rows = table([
    ["step", "p50 ms", "p99 ms", "max ms"],
    ["whole round trip", ...row(samples.total)],
    ["kudurru: login start", ...row(samples.start)],
    ["kudurru: callback", ...row(samples.callback)],
    ["provider (the rest)", ...row(samples.provider)],
    [`ID token as bearer, first use (${TOKENS})`, ...row(bearer.first)],
    ["the same token again (cached)", ...row(bearer.cached)],
    ["an API token (kdr_), for comparison", ...row(bearer.apiToken)],
  ], false);
  for (const line of rows) print(line);
} finally {
  await Deno.remove(dataDir, { recursive: true });
}

function row(xs: number[]): string[] {
  return [ms(percentile(xs, 50)), ms(percentile(xs, 99)), ms(Math.max(...xs))];
}

/** One login in a fresh browser; the times of its parts. */
async function login(base: string) {
  const browser = new Browser(fetch);
  const isCallback = (u: URL) =>
    u.origin === base && u.pathname.endsWith("/callback");
  const began = performance.now();
  const start = await browser.request(`${base}/api/v1/auth/oidc/corp/login`);
  const started = performance.now();
  if (start.status !== 302) fail("login start", start.status, start.body);
  const form = await browser.follow(start.headers.get("location")!);
  const signed = await browser.signIn(
    form.steps.at(-1)!.url,
    "alice",
    isCallback,
  );
  if (signed.next === undefined) {
    fail("provider", signed.steps.at(-1)?.status, signed.steps.at(-1)?.body);
  }
  const before = performance.now();
  const done = await browser.request(signed.next);
  const end = performance.now();
  if (done.status !== 302 || !/kudurru_session=/.test(cookies(done.headers))) {
    fail("callback", done.status, done.body);
  }
  return { total: end - began, start: started - began, callback: end - before };
}

/** One authenticated GET of the status, which must name `who`; its ms. */
async function timedStatus(
  base: string,
  token: string,
  who: string,
): Promise<number> {
  const began = performance.now();
  const res = await fetch(`${base}/api/v1/auth/status`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  const took = performance.now() - began;
  if (res.status !== 200 || JSON.parse(text).data?.user !== who) {
    fail("bearer request", res.status, text);
  }
  return took;
}

function cookies(headers: Headers): string {
  return headers.getSetCookie().join("\n");
}

function fail(step: string, status: number | undefined, body = ""): never {
  throw new Error(`${step} answered ${status}: ${body.slice(0, 500)}`);
}
