/**
 * `kudurru edge render|run`: dnsdist in front of kudurru nodes
 * (src/edge/README.md). `render` prints the dnsdist 1.7 Lua configuration
 * for the flags; `run` renders it, has dnsdist check it, runs dnsdist as a
 * child process and keeps it running, restarts it when the backends change,
 * serves readiness probes, and passes SIGTERM and SIGINT on to it, exiting
 * with its status.
 */
import { join } from "node:path";
import { createLogger, type Logger, readLogEnv } from "../log/logger.ts";
import { formatEndpoint, parseEndpoint } from "../edge/address.ts";
import { readBackendsFile, watchBackendsFile } from "../edge/backends_file.ts";
import { generateCredentials } from "../edge/credentials.ts";
import { renderDnsdistLua } from "../edge/dnsdist_lua.ts";
import { startReadinessServer } from "../edge/readiness.ts";
import { EdgeSupervisor } from "../edge/supervisor.ts";
import {
  type EdgeFlagValues,
  type EdgeTopology,
  EdgeTopologyError,
  topologyFromFlags,
} from "../edge/topology.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { replaceFile, writeAll } from "./replace_file.ts";

/** Where `run` writes dnsdist's configuration without --run-dir or --data-dir. */
export const DEFAULT_RUN_BASE = "/run/kudurru";
export const DEFAULT_READY = "0.0.0.0:8084";

const TOPOLOGY_FLAGS = {
  listen: { type: "string", multiple: true },
  backends: { type: "string" },
  "backends-file": { type: "string" },
  "authoritative-zones": { type: "string" },
  "tls-dir": { type: "string" },
  api: { type: "string" },
  console: { type: "string" },
  "proxy-secret-file": { type: "string" },
  acl: { type: "string", multiple: true },
} as const;

const RENDER_FLAGS = {
  ...TOPOLOGY_FLAGS,
  out: { type: "string", short: "o" },
} as const;

const RUN_FLAGS = {
  ...TOPOLOGY_FLAGS,
  "run-dir": { type: "string" },
  "data-dir": { type: "string" },
  ready: { type: "string" },
  dnsdist: { type: "string" },
} as const;

const TOPOLOGY_USAGE =
  "    --backends ADDR,ADDR       kudurru nodes (address[:port], port 53 by default), or\n" +
  "    --backends-file FILE       one per line, re-read when it changes (run restarts dnsdist)\n" +
  "    --proxy-secret-file FILE   the PROXYv2 secret kudurru checks (TLV 0xE0, at least 32 bytes)\n" +
  "    --listen ADDR              client address, repeatable (default 0.0.0.0:53)\n" +
  "    --authoritative-zones Z,Z  zones sent to the authoritative pool; the rest go to the resolver pool\n" +
  "    --tls-dir DIR              tls.crt and tls.key: DoT on port 853 and DoH on 443 of each --listen host\n" +
  "    --acl PREFIX               clients allowed, repeatable (default: loopback and private ranges)\n" +
  "    --api ADDR                 dnsdist's webserver and API, loopback only (default 127.0.0.1:8083)\n" +
  "    --console ADDR             dnsdist's console, loopback only (default 127.0.0.1:5199)\n";

export const edgeCommand: Command = {
  name: "edge",
  summary:
    "Run dnsdist in front of kudurru nodes (render its configuration, supervise it)",
  usage: "  kudurru edge render [flags] [--out FILE]\n" +
    "  kudurru edge run [flags] [--run-dir DIR | --data-dir DIR] [--ready ADDR] [--dnsdist PATH]\n" +
    TOPOLOGY_USAGE +
    "  render prints dnsdist's Lua configuration (with fresh webserver and console credentials in comments).\n" +
    "  run checks it with dnsdist --check-config, writes it to the run directory (default <data-dir>/edge,\n" +
    "  else /run/kudurru/edge), runs dnsdist and restarts it when it dies or the backends change; probes on\n" +
    "  --ready (default 0.0.0.0:8084): /healthz/live, /healthz/ready (200 when dnsdist has a backend up).",
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === "render") return await render(rest, io);
    if (sub === "run") return await run(rest, io);
    throw new UsageError(
      sub === undefined
        ? "kudurru edge: name a subcommand: render or run"
        : `kudurru edge: unknown subcommand "${sub}"; the ones there are: render, run`,
    );
  },
};

/** The topology for the flags, flag problems as usage errors. */
function topologyOf(
  command: string,
  values: EdgeFlagValues & { "backends-file"?: string | undefined },
): { topology: EdgeTopology; backendsText?: string } {
  const file = values["backends-file"];
  if ((file === undefined) === (values.backends === undefined)) {
    throw new UsageError(
      `kudurru edge ${command}: give --backends or --backends-file (one of them)`,
    );
  }
  try {
    if (file === undefined) return { topology: topologyFromFlags(values) };
    const { list, text } = readBackendsFile(file);
    return { topology: topologyFromFlags(values, list), backendsText: text };
  } catch (error) {
    if (error instanceof EdgeTopologyError) {
      throw new UsageError(`kudurru edge ${command}: ${error.message}`);
    }
    throw error;
  }
}

async function render(args: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags("edge render", args, RENDER_FLAGS, 0);
  const { topology } = topologyOf("render", values);
  const lua = renderDnsdistLua(topology, generateCredentials(), {
    annotateCredentials: true,
  });
  if (values.out === undefined) {
    io.stdout(lua);
    return 0;
  }
  // 0600: the file holds the PROXYv2 secret and the console key.
  await replaceFile(
    values.out,
    (file) => writeAll(file, new TextEncoder().encode(lua)),
    { mode: 0o600 },
  );
  io.stderr(`kudurru edge render: wrote ${values.out}\n`);
  return 0;
}

async function run(args: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags("edge run", args, RUN_FLAGS, 0);
  const { topology, backendsText } = topologyOf("run", values);
  const ready = parseEndpoint(values.ready ?? DEFAULT_READY);
  if (typeof ready === "string") {
    throw new UsageError(`kudurru edge run: --ready: ${ready}`);
  }
  for (const flag of ["run-dir", "data-dir"] as const) {
    if (values[flag]?.trim() === "") {
      throw new UsageError(`kudurru edge run: --${flag} needs a directory`);
    }
  }
  const runDir = values["run-dir"] ??
    join(values["data-dir"] ?? DEFAULT_RUN_BASE, "edge");
  const logger = createLogger(readLogEnv(io.env)).with({ component: "edge" });
  const supervisor = new EdgeSupervisor({
    topology,
    runDir,
    logger,
    ...(values.dnsdist !== undefined ? { dnsdist: values.dnsdist } : {}),
  });
  await supervisor.start();
  return await superviseUntilStopped(supervisor, logger, {
    ready: { hostname: ready.host, port: ready.port },
    backendsFile: values["backends-file"],
    backendsText,
  });
}

/**
 * Serves the probes, follows the backends file, and passes SIGTERM and
 * SIGINT on to dnsdist; resolves to dnsdist's exit code once it stopped.
 */
async function superviseUntilStopped(
  supervisor: EdgeSupervisor,
  logger: Logger,
  opts: {
    ready: { hostname: string; port: number };
    backendsFile: string | undefined;
    backendsText: string | undefined;
  },
): Promise<number> {
  const signals = ["SIGTERM", "SIGINT"] as const;
  const handlers = signals.map((signal) => {
    const handler = () => {
      logger.info("Stopping dnsdist", { signal });
      void supervisor.stop(signal);
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  let probes;
  let watch;
  try {
    probes = startReadinessServer({
      ...opts.ready,
      source: supervisor,
      logger,
    });
    if (opts.backendsFile !== undefined) {
      watch = watchBackendsFile(
        opts.backendsFile,
        (list) => supervisor.setBackends(list),
        {
          logger,
          ...(opts.backendsText !== undefined
            ? { initialText: opts.backendsText }
            : {}),
        },
      );
    }
    logger.info("Supervising dnsdist", {
      pid: supervisor.pid,
      api: formatEndpoint(supervisor.topology.api),
    });
    return await supervisor.done;
  } catch (error) {
    await supervisor.stop("SIGTERM");
    throw error;
  } finally {
    watch?.stop();
    await probes?.stop();
    for (const [signal, handler] of handlers) {
      Deno.removeSignalListener(signal, handler);
    }
  }
}
