/**
 * `kudurru serve`: loads the configuration, starts the server
 * (src/server/server.ts) and stops it on SIGTERM or SIGINT, through
 * lameduck.
 */
import { type Command, parseFlags } from "./command.ts";
import { loadConfig } from "../config/load.ts";
import { renderEffectiveConfig } from "../config/debug.ts";
import { createLogger, readLogEnv } from "../log/logger.ts";
import { enterLameduck } from "../health/lameduck.ts";
import {
  ignoreHangup,
  nextShutdownSignal,
  onShutdownSignals,
} from "../server/signals.ts";
import { machineFacts } from "../server/machine.ts";

import { startServer } from "../server/server.ts";

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
    logger.info("Configuration loaded", {
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
        configInput: loaded.input,
        lockedByEnv: loaded.lockedByEnv,
        configSource: loaded.source,
        logger,
      }),
      early.promise,
    ]);
    if (typeof started === "string") {
      logger.warn(
        "Stop requested during startup; exiting without a clean stop",
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
          logger.error("Forced exit; cache and query log not saved", {
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
    logger.info("Shutting down");
    // In-flight queries get a bounded grace period (the listeners' own); a
    // stop that still cannot finish must not keep a dead server around.
    const finished = await Promise.race([
      server.stop().then(() => true),
      new Promise<false>((r) =>
        setTimeout(() => r(false), SHUTDOWN_DEADLINE_MS)
      ),
    ]);
    if (!finished) {
      logger.error("Shutdown did not finish in time; exiting anyway", {
        seconds: SHUTDOWN_DEADLINE_MS / 1000,
      });
      return 1;
    }
    return 0;
  },
};
