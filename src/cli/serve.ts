/**
 * `kudurru serve`: the server. This is the one place that picks the Store
 * driver and wires the control plane (docs/design.md#layering). Order:
 * config → data directory → store → DNS listeners (bound early, so a port
 * that cannot be bound stops startup before anything else runs; until the
 * first snapshot they answer SERVFAIL) → control socket → first-boot seeds
 * (with the starter list) → file-managed objects → zone controller (serials,
 * status) → blocking (list fetcher, list compiler, temporary disable) →
 * snapshot builder (feeds the listeners).
 */
import { basename, join } from "node:path";
import { type Command, parseFlags } from "./command.ts";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { maskSecrets, renderEffectiveConfig } from "../config/debug.ts";
import { createLogger, type Logger, readLogEnv } from "../log/logger.ts";
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
import { createPrivateFile, ensureDataDir } from "./local_store.ts";
import { lockDataDir } from "./data_dir_lock.ts";
import {
  forgetCacheDump,
  loadCacheDump,
  LOCAL_DB_FILE,
  saveCacheDump,
} from "./local_db.ts";
import { controlSocketAnswers, startControlSocket } from "./control_socket.ts";
import { listsReadiness, startBlocking } from "./serve_blocking.ts";
import { starterBlockList } from "../blocking/starter/starter.ts";
import { createHealth, type Health } from "../health/health.ts";
import { enterLameduck } from "../health/lameduck.ts";
import { startOpsServer } from "../health/ops_server.ts";
import { createDnsMetrics } from "../metrics/dns_metrics.ts";
import { startMetricsServer } from "../metrics/metrics_server.ts";
import { parseListenAddress } from "../listeners/listen_address.ts";
import {
  openQueryLog,
  queryLogHealthCheck,
  warnIfQueryLogPublic,
} from "./serve_querylog.ts";
import { warnUnservedListeners } from "./unserved_listeners.ts";
import {
  ignoreHangup,
  nextShutdownSignal,
  onShutdownSignals,
} from "./serve_signals.ts";
import { machineFacts } from "./machine.ts";
import { VERSION } from "../version.ts";

export interface ServerOptions {
  config: Config;
  /** The file the config came from, or null for embedded defaults. */
  configSource: string | null;
  logger: Logger;
  registry?: Registry;
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
  const { config, logger } = opts;
  const registry = opts.registry ?? defaultRegistry;
  const health = createHealth();
  await ensureDataDir(config.node.dataDir);
  // Two servers on one data directory would both lead (the sqlite store's
  // elector always does), stamp serials, fetch lists and write one query
  // log: the lock, taken before anything opens state.db, keeps the second
  // one out (data_dir_lock.ts); the control socket check catches an older
  // kudurru that takes no lock.
  const lock = await lockDataDir(config.node.dataDir);
  let store: Store;
  try {
    if (await controlSocketAnswers(config.node.dataDir)) {
      throw new Error(
        `Another kudurru serves the data directory "${config.node.dataDir}" (its control socket answers): stop it, or give this one its own node.dataDir`,
      );
    }
    warnIfQueryLogPublic(config.node.dataDir, logger);
    warnUnservedListeners(config.listeners, logger);
    const statePath = join(config.node.dataDir, "state.db");
    createPrivateFile(statePath);
    store = await openSqliteStore(statePath, { node: config.node.name });
  } catch (err) {
    lock.release();
    throw err;
  }
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
    const metricsServer = startMetricsServer({
      ...parseListenAddress(config.listeners.metrics.address),
      registry,
      logger: logger.with({ component: "metrics" }),
    });
    stops.push(() => metricsServer.stop());

    // The query log outlives the listeners: their last events get written.
    const querylog = config.querylog.enabled
      ? openQueryLog(config, logger)
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
    const listeners = await startDnsListeners({
      listeners: config.listeners.dns,
      sockets: config.listeners.sockets,
      ffiSockets: config.listeners.ffiSockets,
      nodeName: config.node.name,
      version: VERSION,
      logger: logger.with({ component: "listeners" }),
      onCounters: (deltas, from) => metrics.record(deltas, from),
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
      logger.info("cache restored", { entries: dump.length });
    }
    stops.push(async () => {
      const entries = await listeners.stopWithCacheDump();
      try {
        saveCacheDump(cacheDumpPath, entries);
        logger.info("cache saved", { entries: entries.length });
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
          config: maskSecrets(config),
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
      logger.error("objects watch stopped", { error: err });
    });
    stops.push(() => watching);

    const controller = startZoneController({
      store,
      logger,
      upstreamGroups: Object.keys(config.upstreams.groups),
      hold: rebuildHold,
    });
    stops.push(() => controller.stop());
    // blocking.initStrategy says which lists are in force from the first
    // answer (fast: the small ones; larger ones join as each compiles).
    let refreshSnapshot = () => {};
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
      hold: rebuildHold,
      onSnapshot: (snapshot) => {
        listeners.setSnapshot(snapshot);
        posted = snapshot;
      },
    });
    refreshSnapshot = () => snapshots.refresh();
    stops.push(() => snapshots.stop());
    health.starting("building the first snapshot");
    await snapshots.synced;
    health.register("store", () => ({ ready: true }));
    if (dump.length > 0) forgetCacheDump(cacheDumpPath, logger);
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

/** Longer than the listeners' 10 s drain, so a clean stop always fits. */
const SHUTDOWN_DEADLINE_MS = 20_000;

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the DNS server",
  usage: "  kudurru serve [--config FILE]\n" +
    "  Without --config, KUDURRU_CONFIG or /etc/kudurru/kudurru.yaml, kudurru starts on its embedded defaults.\n" +
    "  KUDURRU_DEBUG_CONFIG=yes prints the effective configuration (secrets masked).\n" +
    "  KUDURRU_LOG_LEVEL=debug|info|warn|error and KUDURRU_LOG_FORMAT=text|json set the log (default info, text).\n" +
    "  kudurru.yaml is read at start; a second SIGTERM or SIGINT cuts lameduck short, one more while stopping exits at once (1).",
  async run(args, io) {
    const { values } = parseFlags("serve", args, {
      config: { type: "string", short: "c" },
    }, 0);
    const facts = machineFacts();
    // A misspelt level or format must not go unnoticed (readLogEnv throws).
    const logger = createLogger(readLogEnv(io.env));
    const loaded = loadConfig({
      ...(values.config ? { path: values.config } : {}),
      env: Deno.env.toObject(),
      isRoot: facts.isRoot,
      hostname: facts.hostname,
      cwd: facts.cwd,
    });
    for (const note of loaded.notes) logger.info(note);
    logger.info("configuration loaded", {
      source: loaded.source ?? "embedded defaults",
    });
    if (/^(yes|true|1)$/i.test(io.env("KUDURRU_DEBUG_CONFIG") ?? "")) {
      io.stdout(renderEffectiveConfig(loaded.config));
    }
    using _hangup = ignoreHangup(logger);
    // A stop asked for while starting (which can take minutes with
    // blocking.initStrategy: blocking) ends the process at once, saying so.
    const early = nextShutdownSignal();
    const started = await Promise.race([
      startServer({
        config: loaded.config,
        configSource: loaded.source,
        logger,
      }),
      early.promise,
    ]);
    if (typeof started === "string") {
      logger.warn(
        "stop requested during startup; exiting without a clean stop",
        {
          signal: started,
        },
      );
      return 0;
    }
    early.cancel();
    const server = started;
    // One handler for every SIGTERM and SIGINT from here on: the first
    // stops the server (SIGTERM through lameduck); during lameduck another
    // cuts the grace period short; once the stop has begun another ends the
    // process at once (exit 1), saying what is lost, rather than let the
    // signal kill it without a word.
    let phase: "running" | "lameduck" | "stopping" = "running";
    const first = Promise.withResolvers<Deno.Signal>();
    const cut = new AbortController();
    using _signals = onShutdownSignals((signal) => {
      switch (phase) {
        case "running":
          phase = signal === "SIGTERM" ? "lameduck" : "stopping";
          first.resolve(signal);
          return;
        case "lameduck":
          phase = "stopping";
          cut.abort();
          return;
        case "stopping":
          logger.error("forced exit; cache and query log not saved", {
            signal,
          });
          Deno.exit(1);
      }
    });
    const signal = await first.promise;
    // Readiness and the DNS health check fail from the first signal on,
    // lameduck or not.
    server.enterLameduck();
    if (signal === "SIGTERM") {
      // Lameduck: readiness fails so load balancers move away while DNS
      // still answers; a second signal (or Ctrl-C) cuts it short.
      await enterLameduck({
        health: server.health,
        logger,
        signal: cut.signal,
      });
      phase = "stopping";
    }
    logger.info("shutting down");
    // In-flight queries get a bounded grace period (the listeners' own); a
    // stop that still cannot finish must not keep a dead server around.
    const finished = await Promise.race([
      server.stop().then(() => true),
      new Promise<false>((r) =>
        setTimeout(() => r(false), SHUTDOWN_DEADLINE_MS)
      ),
    ]);
    if (!finished) {
      logger.error("shutdown did not finish in time; exiting anyway", {
        seconds: SHUTDOWN_DEADLINE_MS / 1000,
      });
      return 1;
    }
    return 0;
  },
};
