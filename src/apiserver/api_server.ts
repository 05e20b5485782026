/**
 * The API listener (`listeners.api`): the app of app.ts with every route
 * module, the accounts it needs on first start (the admin, a bootstrap
 * token), keys for sessions and TOTP secrets, and TLS when configured.
 */
import { BusyBudget } from "./busy_budget.ts";
import { normalizePrefix, underPrefix } from "./path_prefix.ts";
import { normalizePublicUrl, publicPath } from "./public_base.ts";
import type { Context } from "hono";
import { ACCOUNTS_MANAGER, ensureFirstAdmin } from "../auth/accounts.ts";
import { BindingsSource } from "../auth/bindings_source.ts";
import { loadEncryptionKeys } from "../auth/encryption_keys.ts";
import { LoginLimiter } from "../auth/login_limits.ts";
import { sealingKeys } from "../auth/sealed.ts";
import { ensureGivenToken, TokenChecker } from "../auth/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import { authorize, creatorBinding } from "../rbac/authorize.ts";
import type { Binding } from "../rbac/binding.ts";
import type { Store } from "../store/store.ts";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { type ApiApp, createApiApp, type RouteModule } from "./app.ts";
import { apiTlsFiles } from "./api_tls.ts";
import { authenticatedOf } from "./authenticated.ts";
import { authentication } from "./authentication.ts";
import { guardCheck } from "./guard_check.ts";
import { accountRoutes } from "./routes/account_routes.ts";
import { authRoutes } from "./routes/auth_routes.ts";
import { oidcRoutes } from "./routes/oidc_routes.ts";
import { sessionRoutes } from "./routes/session_routes.ts";
import { SessionRecords } from "../auth/session_records.ts";
import { ProviderRegistry } from "../auth/oidc/providers.ts";
import { BearerVerifier } from "../auth/oidc/bearer.ts";
import { provisioningBindings } from "../auth/oidc/grants.ts";
import { idTokenAuthentication } from "./id_token_authentication.ts";
import { objectRoutes, type Permits } from "./routes/objects.ts";
import { exportRoutes } from "./routes/export_routes.ts";
import { restoreRoutes } from "./routes/restore_routes.ts";
import { requestOrigin } from "./request_origin.ts";
import { apiDocsRoutes } from "./api_docs/docs_route.ts";
import { uiFallback, uiRoutes } from "./ui/ui_routes.ts";

export interface ApiServerOptions {
  config: Config;
  store: Store;
  logger: Logger;
  /** Environment variables (KUDURRU_ADMIN_PASSWORD[_FILE], KUDURRU_ENCRYPTION_KEY…). */
  env: (name: string) => string | undefined;
  hostname: string;
  /**
   * Why kudurru.io objects cannot be written through the API on this node,
   * if they cannot (a static node: `cluster.role: static`).
   */
  readOnlyReason?: () => string | undefined;
  /** @default a BusyBudget of listeners.api.cpuPercent */
  budget?: BusyBudget;
  /**
   * Time the main thread spent on other work so far, in ms (the query-log
   * writer's batches), which the default budget does not count as the API's.
   */
  otherWorkMs?: () => number;
  /** Whether DNS is quiet now (BusyBudget's dnsQuiet). */
  dnsQuiet?: () => boolean;
  /** Route modules beyond accounts and objects (query log, operations, …). */
  extraRoutes?: (shared: SharedRouteDeps) => RouteModule[];
  now?: () => number;
}

/** What route modules share: the Store, the clock, the permission checks. */
export interface SharedRouteDeps {
  store: Store;
  now: () => number;
  permits(c: Context): Promise<Permits>;
  logger: Logger;
  /** The API's CPU share, for what a route streams after it returned. */
  budget: BusyBudget;
}

/** The app with every route, and what first start printed. */
export interface BuiltApi extends ApiApp {
  /** The generated first admin password, shown once in the log. */
  generatedPassword?: string;
}

/** Builds the API (tests serve it in-process; startApiServer serves it on the listener). */
export async function buildApi(
  opts: ApiServerOptions & { tls: boolean },
): Promise<BuiltApi> {
  const { config, store, logger } = opts;
  const now = opts.now ?? Date.now;
  const keys = await loadEncryptionKeys({
    env: opts.env,
    dataDir: config.node.dataDir,
  });
  for (const note of keys.notes) logger.info(note);
  const sessionKeys = await sealingKeys(keys, "sessionCookie");
  const totpKeys = await sealingKeys(keys, "totpSecret");
  const loginStateKeys = await sealingKeys(keys, "loginState");
  const providers = await ProviderRegistry.create(
    config.auth.identityProviders,
    { now },
  );
  const first = await ensureFirstAdmin(store, {
    password: secretVariable(opts.env, "KUDURRU_ADMIN_PASSWORD") ??
      (config.auth.bootstrap.adminPassword ||
        await readIfSet(config.auth.bootstrap.adminPasswordFile)),
    logger,
  });
  await ensureBootstrapToken(store, opts.env);
  // The default roles of `always` providers are bindings like any other.
  const configured = [
    ...config.rbac.bindings as unknown as Binding[],
    ...provisioningBindings(config.auth.identityProviders),
  ];
  const bindings = new BindingsSource(store, configured, now);
  const limiter = new LoginLimiter({ now });
  const tokens = new TokenChecker(store);
  const times = {
    idleMs: config.auth.session.idleTimeout,
    lifetimeMs: config.auth.session.lifetime,
  };
  const records = new SessionRecords(store, times);
  // A provider's user is `<provider>:<name>`; a local user's name has no colon.
  const providerUser = (name: string) =>
    providers.list().some((p) => name.startsWith(`${p.id}:`));
  const permits = async (c: Context): Promise<Permits> => {
    const who = authenticatedOf(c);
    const held = await bindings.bindings();
    return (resource, verb, scope) =>
      who !== undefined &&
      authorize(who.principal, held, { resource, verb, scope }).allowed;
  };
  const pathPrefix = normalizePrefix(config.listeners.api.pathPrefix);
  const publicURL = normalizePublicUrl(config.auth.publicURL);
  // The web UI's <base>: the path browsers see, which a proxy may have
  // stripped before the request got here.
  const uiBase = publicPath(publicURL, pathPrefix);
  // Behind a proxy that terminates TLS, browsers still see https: the
  // cookies are Secure (and __Host-) all the same.
  const secureCookies = opts.tls || publicURL.startsWith("https:");
  const budget = opts.budget ??
    new BusyBudget({
      percent: config.listeners.api.cpuPercent,
      ...(opts.otherWorkMs && { otherWorkMs: opts.otherWorkMs }),
      ...(opts.dnsQuiet && { dnsQuiet: opts.dnsQuiet }),
    });
  const shared: SharedRouteDeps = { store, now, permits, logger, budget };
  // The creator of a zone goes on administering it (authorize.ts).
  const zoneCreated = async (c: Context, zone: KObject): Promise<void> => {
    const who = authenticatedOf(c);
    if (who === undefined) return;
    const held = await bindings.bindings();
    const binding = creatorBinding(
      who.principal,
      held,
      zone.metadata.name,
    );
    if (binding === undefined) return;
    await store.apply({
      apiVersion: API_VERSION,
      kind: "RoleBinding",
      // One creator per zone: the name needs no part of the user's.
      metadata: { name: `${zone.metadata.name}-creator` },
      spec: binding,
    }, { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) });
    bindings.changed();
  };
  const modules: RouteModule[] = [
    authRoutes({
      store,
      limiter,
      sessionKeys,
      totpKeys,
      times,
      tls: secureCookies,
      now,
      localLogin: config.auth.localLogin,
      bindings: () => bindings.bindings(),
      clientAddress,
      records,
      providerUser,
    }),
    sessionRoutes({ store, records, now, providerUser }),
    oidcRoutes({
      providers,
      sessionKeys,
      loginStateKeys,
      times,
      tls: secureCookies,
      pathPrefix,
      publicURL,
      now,
      limiter,
      logger,
      bindings: () => bindings.bindings(),
      clientAddress,
      records,
    }),
    accountRoutes({
      store,
      now,
      maxTokenLifetimeMs: config.auth.tokens.maxLifetime,
      sessionRecords: records,
      configuredBindings: configured,
      bindingsChanged: () => bindings.changed(),
      mayManageAllTokens: async (c, verb) =>
        (await permits(c))("tokens", verb, { kind: "cluster" }),
    }),
    objectRoutes({
      store,
      permits,
      zoneCreated,
      ...(opts.readOnlyReason && { readOnlyReason: opts.readOnlyReason }),
    }),
    exportRoutes({ store, permits, now, logger, budget }),
    restoreRoutes({
      store,
      permits,
      zoneCreated,
      now,
      ...(opts.readOnlyReason && { readOnlyReason: opts.readOnlyReason }),
    }),
    apiDocsRoutes(),
    uiRoutes(uiBase),
    ...(opts.extraRoutes?.(shared) ?? []),
  ];
  const api = createApiApp({
    logger,
    tls: opts.tls,
    pathPrefix,
    fallback: uiFallback(uiBase),
    budget,
    check: guardCheck(() => bindings.bindings()),
    authenticate: authentication({
      store,
      tokens,
      sessionKeys,
      times,
      tls: secureCookies,
      now,
      clientAddress,
      idpKnown: (id) => providers.get(id) !== undefined,
      idToken: idTokenAuthentication({
        verifier: new BearerVerifier(providers.list()),
        bindings: () => bindings.bindings(),
        logger,
      }),
      records,
    }),
  }, modules);
  return {
    ...api,
    ...(first.generatedPassword !== undefined &&
      { generatedPassword: first.generatedPassword }),
  };
}

/** A running API listener. */
export interface ApiServer {
  readonly addr: Deno.NetAddr;
  readonly tls: boolean;
  stop(): Promise<void>;
}

/** Serves the API on `listeners.api`. */
export async function startApiServer(
  opts: ApiServerOptions & { hostname: string; port: number },
): Promise<ApiServer & { generatedPassword?: string }> {
  const tlsFiles = await apiTlsFiles(opts.config.listeners.api.tls, {
    dataDir: opts.config.node.dataDir,
    hostname: opts.env("HOSTNAME") ?? opts.config.node.name,
    logger: opts.logger,
  });
  const api = await buildApi({ ...opts, tls: tlsFiles !== undefined });
  const server = Deno.serve({
    hostname: opts.hostname,
    port: opts.port,
    ...(tlsFiles !== undefined && { cert: tlsFiles.cert, key: tlsFiles.key }),
    onListen: () => {},
    onError: (error) => {
      opts.logger.error("API request failed", { error });
      return new Response("internal error\n", { status: 500 });
    },
  }, underPrefix(opts.config.listeners.api.pathPrefix, api.app.fetch));
  const addr = server.addr as Deno.NetAddr;
  opts.logger.info("Serving the API", {
    address: `${addr.hostname}:${addr.port}`,
    tls: tlsFiles !== undefined,
    docs: "/api/docs",
  });
  return {
    addr,
    tls: tlsFiles !== undefined,
    stop: () => server.shutdown(),
    ...(api.generatedPassword !== undefined &&
      { generatedPassword: api.generatedPassword }),
  };
}

/** The client's address as the socket saw it ("unknown" in tests without one). */
export function clientAddress(c: Context): string {
  return requestOrigin(c).client;
}

/** `name`, or the contents of the file `name_FILE` names. */
function secretVariable(
  env: (name: string) => string | undefined,
  name: string,
): string | undefined {
  const direct = env(name);
  if (direct !== undefined && direct !== "") return direct;
  const file = env(`${name}_FILE`);
  if (file === undefined || file === "") return undefined;
  try {
    return Deno.readTextFileSync(file).replace(/[\r\n]+$/, "");
  } catch (error) {
    throw new Error(
      `Cannot read ${name}_FILE "${file}": ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function readIfSet(path: string): Promise<string | undefined> {
  if (path === "") return undefined;
  try {
    return (await Deno.readTextFile(path)).replace(/[\r\n]+$/, "");
  } catch (error) {
    throw new Error(
      `Cannot read auth.bootstrap.adminPasswordFile "${path}": ${
        (error as Error).message
      }`,
      { cause: error },
    );
  }
}

/**
 * KUDURRU_BOOTSTRAP_TOKEN[_FILE]: a token for automation, owned by the
 * service account `bootstrap` with the admin role, made once.
 */
async function ensureBootstrapToken(
  store: Store,
  env: (name: string) => string | undefined,
): Promise<void> {
  const text = secretVariable(env, "KUDURRU_BOOTSTRAP_TOKEN");
  if (text === undefined) return;
  const account = { kind: "ServiceAccount" as const, name: "bootstrap" };
  const options = { manager: "api", actor: "bootstrap" };
  await store.apply({
    apiVersion: API_VERSION,
    kind: "ServiceAccount",
    metadata: { name: account.name },
    spec: { description: "Owns the KUDURRU_BOOTSTRAP_TOKEN token" },
  }, options);
  await store.apply({
    apiVersion: API_VERSION,
    kind: "RoleBinding",
    metadata: { name: "bootstrap" },
    spec: {
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [account],
    },
  }, options);
  await ensureGivenToken(store, text, account, "KUDURRU_BOOTSTRAP_TOKEN");
}
