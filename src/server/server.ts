/**
 * The running server: the one place that picks the Store driver and wires
 * the control plane (docs/design.md#layering). Order: config → data
 * directory → store → the settings changed through the API, merged over
 * the file → DNS listeners (bound early, so a port that cannot be bound
 * stops startup before anything else runs; until the first snapshot they
 * answer SERVFAIL) → control socket → first-boot seeds (with the starter
 * list) → file-managed objects → zone controller (serials, status) →
 * blocking (list fetcher, list compiler, temporary disable) → snapshot
 * builder (feeds the listeners) → the HTTP API (api.ts). `kudurru serve`
 * (src/cli/serve.ts) loads the configuration, starts it and stops it on a
 * signal.
 */
import { basename, join } from "node:path";
import type { Config } from "../config/schema.ts";
import { shownConfig } from "../config/debug.ts";
import { type Logger } from "../log/logger.ts";
import { defaultRegistry, type Registry } from "../metrics/registry.ts";
import type { Store } from "../store/store.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import { seedFirstBoot } from "../objects/bootstrap.ts";
import { createObjectsLoader } from "../objects/loader.ts";
import { startDnsListeners } from "../listeners/listeners.ts";
import { startSnapshotBuilder } from "../snapshot/builder.ts";
import { RebuildHold } from "../snapshot/rebuild_hold.ts";
import { startZoneController } from "../controller/zone_controller.ts";
import { createPrivateFile, ensureDataDir } from "./data_dir.ts";
import { lockDataDir } from "./data_dir_lock.ts";
import {
  forgetCacheDump,
  loadCacheDump,
  LOCAL_DB_FILE,
  saveCacheDump,
} from "./local_db.ts";
import { controlSocketAnswers, startControlSocket } from "./control_socket.ts";
import { listsReadiness, startBlocking } from "./blocking.ts";
import { starterBlockList } from "../blocking/starter/starter.ts";
import { createHealth, type Health } from "../health/health.ts";
import { startOpsServer } from "../health/ops_server.ts";
import { createDnsMetrics } from "../metrics/dns_metrics.ts";
import { startMetricsServer } from "../metrics/metrics_server.ts";
import { parseListenAddress } from "../listeners/listen_address.ts";
import {
  openQueryLog,
  queryLogHealthCheck,
  warnIfQueryLogPublic,
} from "./querylog.ts";
import {
  dnsListenerConfigs,
  proxyTrustInit,
  servesTls,
} from "./dns_listener_configs.ts";
import { DnsCertificates } from "../tls/dns_certificates.ts";
import { createTlsMetrics } from "../metrics/tls_metrics.ts";
import { VERSION } from "../version.ts";
import { startApi } from "./api.ts";
import { ClusterSettings } from "../apiserver/cluster_settings.ts";
import { storeAdminActions } from "./admin_actions.ts";
import { LiveFeed } from "../querylog/live_feed.ts";
import {
  type NamedTsigKey,
  TSIG_KEY_DIR,
  watchTsigKeys,
} from "../transfer/tsig_key_files.ts";
import { createNotifier } from "../transfer/notify_out.ts";
import { zoneChangeHandler } from "../transfer/zone_changes.ts";
import { openLocalStores } from "./local_stores.ts";
import { DnsLoad } from "./dns_load.ts";
import { startSecondaryZones } from "../transfer/secondary_zones.ts";
import { createTransferMetrics } from "../metrics/transfer_metrics.ts";

export interface ServerOptions {
  config: Config;
  /** What `config` was parsed from (LoadedConfig.input). */
  configInput: Record<string, unknown>;
  /** Keys the environment sets (LoadedConfig.lockedByEnv). */
  lockedByEnv: readonly string[];
  /** The file the config came from, or null for embedded defaults. */
  configSource: string | null;
  logger: Logger;
  registry?: Registry;
  /** Environment variables read at start (admin password, keys). @default Deno.env */
  env?: (name: string) => string | undefined;
  /** Overrides for tests; production uses the defaults. */
  objectsPollIntervalMs?: number;
  objectsDebounceMs?: number;
}

export interface RunningServer {
  store: Store;
  /** Readiness; serve turns it to lameduck on SIGTERM. */
  health: Health;
  /**
   * Readiness and the DNS health check (`health.kudurru.internal.`) fail
   * from now on, while every other query is still answered.
   */
  enterLameduck(): void;
  /** Stops the watch loops and closes the store. */
  stop(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { logger } = opts;
  // Until the Store is open: the file's node settings, which the API never
  // changes (hostOnly).
  const file = opts.config;
  const registry = opts.registry ?? defaultRegistry;
  const health = createHealth();
  await ensureDataDir(file.node.dataDir);
  // Two servers on one data directory would both lead (the sqlite store's
  // elector always does), stamp serials, fetch lists and write one query
  // log: the lock, taken before anything opens state.db, keeps the second
  // one out (data_dir_lock.ts); the control socket check catches an older
  // kudurru that takes no lock.
  const lock = await lockDataDir(file.node.dataDir);
  let store: Store;
  try {
    if (await controlSocketAnswers(file.node.dataDir)) {
      throw new Error(
        `Another kudurru serves the data directory "${file.node.dataDir}" (its control socket answers): stop it, or give this one its own node.dataDir`,
      );
    }
    warnIfQueryLogPublic(file.node.dataDir, logger);
    const statePath = join(file.node.dataDir, "state.db");
    createPrivateFile(statePath);
    store = await openSqliteStore(statePath, { node: file.node.name });
  } catch (err) {
    lock.release();
    throw err;
  }
  let settings: ClusterSettings;
  try {
    // The file with the settings changed through the API merged over it.
    settings = await ClusterSettings.open({
      store,
      input: opts.configInput,
      lockedByEnv: opts.lockedByEnv,
      logger,
    });
  } catch (err) {
    await store.close();
    lock.release();
    throw err;
  }
  const config = settings.effective;
  const startedAt = new Date().toISOString();
  const stopping = new AbortController();
  const stops: (() => Promise<void>)[] = [
    () => Promise.resolve(lock.release()),
    () => store.close(),
  ];
  const stopAll = async () => {
    stopping.abort();
    // In reverse order of starting; the listeners finish in-flight queries.
    for (const stop of stops.reverse()) await stop();
  };
  try {
    // Probes and metrics first, so they stop last: 503 while shutting down.
    const ops = startOpsServer({
      ...parseListenAddress(config.listeners.ops.address),
      health,
      logger: logger.with({ component: "ops" }),
    });
    stops.push(() => ops.stop());
    const metrics = createDnsMetrics(registry);
    const transferMetrics = createTransferMetrics(registry);
    const metricsServer = startMetricsServer({
      ...parseListenAddress(config.listeners.metrics.address),
      registry,
      logger: logger.with({ component: "metrics" }),
    });
    stops.push(() => metricsServer.stop());

    // The query log outlives the listeners: their last events get written.
    // What the API's live tail follows: the events as the log stores them.
    const liveFeed = new LiveFeed();
    const querylog = config.querylog.enabled
      ? openQueryLog(config, logger, liveFeed)
      : undefined;
    let droppedInWorkers = 0;
    if (querylog) {
      stops.push(() => querylog.close());
      health.register("querylog", queryLogHealthCheck(querylog));
      metrics.readQueryLogStatsFrom(() => {
        const stats = querylog.stats();
        return { ...stats, dropped: stats.dropped + droppedInWorkers };
      });
    }

    health.starting("starting the DNS listeners");
    // A NOTIFY for a secondary zone, from one of its primaries (the
    // listener checked), once the secondary zones run.
    let onNotify = (_zone: string, _from: string): void => {};
    // DoT, DoH and DoQ certificates: read (or made) now, so a pair that
    // cannot be served stops the start with the reason.
    const certificates = servesTls(config.listeners)
      ? new DnsCertificates({
        dataDir: config.node.dataDir,
        hostname: config.node.name,
        clientIdDomain: config.listeners.clientIdDomain,
        logger: logger.with({ component: "tls" }),
      })
      : undefined;
    if (certificates !== undefined) {
      stops.push(() => Promise.resolve(certificates.close()));
      createTlsMetrics(registry, () => certificates.expiries());
    }
    const dnsLoad = new DnsLoad();
    const listeners = await startDnsListeners({
      onNotify: (zone, from) => onNotify(zone, from),
      listeners: await dnsListenerConfigs(config.listeners, certificates),
      clientIdDomain: config.listeners.clientIdDomain,
      ...(await proxyTrustInit(config.listeners)),
      sockets: config.listeners.sockets,
      ffiSockets: config.listeners.ffiSockets,
      nodeName: config.node.name,
      version: VERSION,
      logger: logger.with({ component: "listeners" }),
      onCounters: (deltas, from) => {
        metrics.record(deltas, from);
        dnsLoad.record(deltas.socket.queries);
      },
      ...(querylog && {
        onEvents: (batch, dropped) => {
          querylog.enqueuePacked(batch);
          droppedInWorkers += dropped;
        },
      }),
    });
    health.register("listeners", () => {
      const down = listeners.down();
      return down.length === 0
        ? { ready: true }
        : { ready: false, reason: `DNS listeners down: ${down.join("; ")}` };
    });
    // The answer cache outlives a restart: restored from local.db now (the
    // workers serve from it once the first snapshot enables the cache),
    // written back from the workers' dumps when they stop.
    const cacheDumpPath = join(config.node.dataDir, LOCAL_DB_FILE);
    const dump = loadCacheDump(cacheDumpPath, { logger });
    listeners.importCache(dump);
    if (dump.length > 0) {
      logger.info("Cache restored", { entries: dump.length });
    }
    // TSIG keys are files (src/transfer/tsig_key_files.ts), read again as
    // they change and handed to the workers in the snapshot.
    let tsigKeys: NamedTsigKey[] = [];
    let onTsigKeys = (keys: NamedTsigKey[]): void => {
      tsigKeys = keys;
    };
    const keyWatch = await watchTsigKeys(
      join(config.node.dataDir, TSIG_KEY_DIR),
      logger,
      (keys) => onTsigKeys(keys),
    );
    stops.push(() => Promise.resolve(keyWatch[Symbol.dispose]()));
    // The zone journal (IXFR) and the secondary zones' copies live in
    // local.db beside the cache dump; without it, transfers still work.
    const local = openLocalStores(cacheDumpPath, logger);
    if (local !== undefined) {
      stops.push(() => Promise.resolve(local.close()));
    }
    const notifier = createNotifier({
      logger,
      onResult: (r) => {
        transferMetrics.notified(
          r.zone,
          `${r.target.address} ${r.target.port}`,
          r.outcome,
        );
        zoneChanges.noteResult(r);
      },
    });
    stops.push(() => notifier.stop());
    // A zone's NOTIFY failures are a condition of its status, which the
    // zone controller (started below) writes.
    let refreshStatuses = () => {};
    const zoneChanges = zoneChangeHandler({
      logger,
      onNotifyFailures: () => refreshStatuses(),
      notifier,
      keys: () => tsigKeys,
      ...(local && { journal: local.journal }),
    });
    stops.push(() => Promise.resolve(zoneChanges.stop()));
    stops.push(async () => {
      const entries = await listeners.stopWithCacheDump();
      try {
        saveCacheDump(cacheDumpPath, entries);
        logger.info("Cache saved", { entries: entries.length });
      } catch (err) {
        logger.error("Cannot save the cache; it starts empty next time", {
          path: cacheDumpPath,
          error: err,
        });
      }
    });

    const control = await startControlSocket(
      config.node.dataDir,
      {
        flushCache: (name, opts) => listeners.flushCache(name, opts),
        runningConfig: () => ({
          source: opts.configSource,
          startedAt,
          config: shownConfig(config),
        }),
        admin: storeAdminActions(store, {
          maxTokenLifetimeMs: config.auth.tokens.maxLifetime,
        }),
      },
      logger.with({ component: "control" }),
    );
    if (control) stops.push(() => control.stop());

    await seedFirstBoot(store, {
      logger,
      starterBlockList: () => Promise.resolve(starterBlockList()),
    }).catch((err) => {
      // SQLite's "database or disk is full" names no file.
      throw new Error(
        `Cannot write the first-boot objects to ${
          join(config.node.dataDir, "state.db")
        }: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    });
    // The loader holds whole-zone rebuilds while it writes a file's objects:
    // a zone's record sets arrive one by one, and are built once.
    const rebuildHold = new RebuildHold();
    const loader = createObjectsLoader({
      store,
      hold: rebuildHold,
      inline: config.objects,
      inlineSource: opts.configSource
        ? basename(opts.configSource)
        : "kudurru.yaml",
      dir: config.objectsDir,
      logger: logger.with({ component: "objects" }),
      registry,
      static: config.cluster.role === "static",
      ...(opts.objectsPollIntervalMs !== undefined
        ? { pollIntervalMs: opts.objectsPollIntervalMs }
        : {}),
      ...(opts.objectsDebounceMs !== undefined
        ? { debounceMs: opts.objectsDebounceMs }
        : {}),
    });
    health.starting("loading objects");
    await loader.load();
    const watching = loader.watch(stopping.signal).catch((err) => {
      logger.error("Objects watch stopped", { error: err });
    });
    stops.push(() => watching);

    const controller = startZoneController({
      store,
      logger,
      upstreamGroups: Object.keys(config.upstreams.groups),
      hold: rebuildHold,
      onNewSerial: zoneChanges.onNewSerial,
      notifyFailure: zoneChanges.notifyFailure,
    });
    stops.push(() => controller.stop());
    refreshStatuses = () => controller.refresh();
    // blocking.initStrategy says which lists are in force from the first
    // answer (fast: the small ones; larger ones join as each compiles).
    let refreshSnapshot = () => {};
    const secondaries = startSecondaryZones({
      store,
      logger,
      keys: () => tsigKeys,
      onChange: () => refreshSnapshot(),
      onRefresh: (zone, result) => transferMetrics.transferIn(zone, result),
      ...(local && { copies: local.copies }),
    });
    onNotify = (zone, from) => secondaries.notified(zone, from);
    stops.push(() => secondaries.stop());
    health.starting(
      config.blocking.initStrategy === "fast"
        ? "compiling block lists"
        : `downloading block lists (blocking.initStrategy: ${config.blocking.initStrategy})`,
    );
    const blocking = await startBlocking({
      store,
      config,
      logger,
      registry,
      onChange: () => refreshSnapshot(),
    });
    stops.push(() => blocking.stop());
    health.register(
      "lists",
      listsReadiness(config.blocking.allowDegraded, blocking.assembler),
    );
    let posted: Snapshot | undefined;
    metrics.readSnapshotFrom(() => posted);
    health.register(
      "snapshot",
      () =>
        posted === undefined
          ? { ready: false, reason: "no snapshot posted to the listeners yet" }
          : { ready: true },
    );
    const snapshots = startSnapshotBuilder({
      store,
      nodeName: config.node.name,
      version: VERSION,
      logger,
      settings: {
        upstreams: config.upstreams,
        cache: config.cache,
        ratelimit: config.ratelimit,
      },
      blocking: blocking.assembler,
      tsigKeys,
      secondaries,
      ...(local && { journalPath: cacheDumpPath }),
      hold: rebuildHold,
      onSnapshot: (snapshot) => {
        listeners.setSnapshot(snapshot);
        posted = snapshot;
        // NOTIFY only once every listener answers with the new serial: a
        // secondary asks for the SOA at once.
        listeners.whenServed(snapshot.version).then(() =>
          zoneChanges.onSnapshot(snapshot)
        );
      },
    });
    onTsigKeys = (keys) => snapshots.setTsigKeys(keys);
    refreshSnapshot = () => snapshots.refresh();
    stops.push(() => snapshots.stop());
    // Upstreams, cache and rate limits changed through the API: the next
    // snapshot carries them to every worker.
    settings.onLive((changed) =>
      snapshots.setSettings({
        upstreams: changed.upstreams,
        cache: changed.cache,
        ratelimit: changed.ratelimit,
      })
    );
    health.starting("building the first snapshot");
    await snapshots.synced;
    health.register("store", () => ({ ready: true }));
    if (dump.length > 0) forgetCacheDump(cacheDumpPath, logger);

    const api = await startApi({
      config,
      configSource: opts.configSource,
      startedAt,
      store,
      settings,
      listeners,
      blocking,
      loader,
      health,
      snapshot: () => posted,
      dnsQuiet: () => dnsLoad.quiet(),
      ...(querylog && {
        liveFeed,
        queryLogWriteMs: () => querylog.stats().writeMs,
      }),
      logger: logger.with({ component: "api" }),
      env: opts.env ?? ((name) => Deno.env.get(name)),
    });
    stops.push(() => api.stop());
    health.markStarted();

    logger.info("kudurru is running", {
      version: VERSION,
      node: config.node.name,
      dataDir: config.node.dataDir,
      objectsDir: config.objectsDir,
    });
    return {
      store,
      health,
      enterLameduck() {
        health.setLameduck();
        listeners.enterLameduck();
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
