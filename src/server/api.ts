/**
 * The management plane, wired in one place: the HTTP API on
 * `listeners.api` with every route module and the parts of the running
 * server each one may reach (the Store, the settings, the query log, the
 * listeners, blocking, the objects loader, health). Route modules know
 * nothing else of the server.
 */
import { join } from "node:path";
import { clientAddress, startApiServer } from "../apiserver/api_server.ts";
import type { ClusterSettings } from "../apiserver/cluster_settings.ts";
import { auditRoutes } from "../apiserver/routes/audit_routes.ts";
import { encryptedDnsRoutes } from "../apiserver/routes/encrypted_dns_routes.ts";
import { nodeRoutes } from "../apiserver/routes/node_routes.ts";
import { operationsRoutes } from "../apiserver/routes/operations_routes.ts";
import { queryLogRoutes } from "../apiserver/routes/querylog_routes.ts";
import { settingsRoutes } from "../apiserver/routes/settings_routes.ts";
import { statsRoutes } from "../apiserver/routes/stats_routes.ts";
import { whyRoutes } from "../apiserver/routes/why_routes.ts";
import { zoneRoutes } from "../apiserver/routes/zone_routes.ts";
import type { Config } from "../config/schema.ts";
import type { Health } from "../health/health.ts";
import type { DnsListeners } from "../listeners/listeners.ts";
import { parseListenAddress } from "../listeners/listen_address.ts";
import type { Logger } from "../log/logger.ts";
import type { ObjectsLoader } from "../objects/loader.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import type { LiveFeed } from "../querylog/live_feed.ts";
import type { Store } from "../store/store.ts";
import type { BlockingWiring } from "./blocking.ts";

/** What the API may reach of the running server. */
export interface ApiWiring {
  config: Config;
  configSource: string | null;
  startedAt: string;
  store: Store;
  settings: ClusterSettings;
  listeners: DnsListeners;
  blocking: BlockingWiring;
  loader: ObjectsLoader;
  health: Health;
  /** The snapshot the listeners serve now. */
  snapshot: () => Snapshot | undefined;
  /** What the live tail follows; absent when the query log is off. */
  liveFeed?: LiveFeed;
  /** Time the query-log writer spent writing so far, in ms. */
  queryLogWriteMs?: () => number;
  /** Whether DNS is quiet now (dns_load.ts): the API's share then binds nothing. */
  dnsQuiet: () => boolean;
  logger: Logger;
  env: (name: string) => string | undefined;
}

/** Starts the API; logs the generated first password, once. */
export async function startApi(w: ApiWiring) {
  const { config, listeners } = w;
  const queryLogPath = join(config.node.dataDir, QUERYLOG_DB_FILE);
  const address = parseListenAddress(config.listeners.api.address);
  const readOnlyReason = () =>
    w.loader.apiReadOnly()
      ? "this node runs with cluster.role static: objects come from kudurru.yaml and objects.d only; change them there, on every node"
      : undefined;
  const api = await startApiServer({
    config,
    store: w.store,
    logger: w.logger,
    env: w.env,
    hostname: address.hostname,
    port: address.port,
    readOnlyReason,
    ...(w.queryLogWriteMs && { otherWorkMs: w.queryLogWriteMs }),
    dnsQuiet: w.dnsQuiet,
    extraRoutes: (shared) => [
      zoneRoutes({
        store: w.store,
        now: shared.now,
        readOnlyReason,
        servedContent: (name) =>
          w.snapshot()?.zones.find((z) => z.name === name),
      }),
      settingsRoutes(w.settings),
      queryLogRoutes({
        queryLogPath,
        now: shared.now,
        logger: shared.logger,
        budget: shared.budget,
        ...(w.liveFeed && { liveFeed: w.liveFeed }),
      }),
      statsRoutes({
        queryLogPath,
        now: shared.now,
        nodeName: config.node.name,
      }),
      whyRoutes({
        explain: (question, client) => listeners.explain(question, client),
        clientAddress,
      }),
      operationsRoutes({
        store: w.store,
        now: shared.now,
        blockingConfigured: config.blocking.enabled,
        flushCache: (name, o) => listeners.flushCache(name, o),
        refreshList: (key) => w.blocking.refreshList(key),
        logger: shared.logger,
      }),
      nodeRoutes({
        config,
        configSource: w.configSource,
        startedAt: w.startedAt,
        now: shared.now,
        storeInfo: () => w.store.info(),
        dnsListeners: () => ({
          bound: listeners.addresses(),
          down: listeners.down(),
        }),
        snapshot: () => {
          const posted = w.snapshot();
          return posted && { version: posted.version, builtAt: posted.builtAt };
        },
        readiness: () => w.health.ready(),
        loaderStatus: () => w.loader.status(),
        permits: shared.permits,
      }),
      auditRoutes({
        readAudit: (query) => w.store.readAudit(query),
        now: shared.now,
      }),
      encryptedDnsRoutes({
        config,
        selfSignedCa: () => selfSignedCaOf(config),
      }),
    ],
  });
  if (api.generatedPassword !== undefined) {
    // Shown once: it is not stored anywhere but as a hash.
    w.logger.warn(
      "First start: log in as admin with this password, then change it",
      { user: "admin", password: api.generatedPassword },
    );
  }
  return api;
}

/** The self-signed CA of the DNS listeners, when one of them uses it. */
async function selfSignedCaOf(config: Config): Promise<string | undefined> {
  const { dot, doh, doq } = config.listeners;
  const auto = [...dot, ...doh, ...doq].some((l) =>
    l.tls?.auto === "selfsigned"
  );
  if (!auto) return undefined;
  try {
    return await Deno.readTextFile(
      join(config.node.dataDir, "keys", "dns-ca.crt"),
    );
  } catch {
    return undefined; // not made yet
  }
}
