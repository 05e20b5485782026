/**
 * `kudurru blocking disable [DURATION] | enable | status`: the temporary,
 * cluster-wide blocking switch. Locally it writes the runtime value
 * blocking.disabledUntil to state.db in the data directory, like the other
 * object commands; a running server reads it within a second, and it
 * survives restarts and runs out by itself. With a context (target.ts) it
 * reads and sets the same value through the server's /api/v1/blocking,
 * and prints the same lines.
 */
import {
  BLOCKING_DISABLED_KEY,
  disableBlocking,
  enableBlocking,
  MAX_BLOCKING_DISABLE_MS,
  parseDisabledUntil,
} from "../blocking/blocking_state.ts";
import { closestMatch } from "../config/closest_match.ts";
import { ConfigError } from "../config/config_error.ts";
import { formatDuration, parseDuration } from "../config/duration.ts";
import type { Store } from "../store/store.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import {
  loadLocalConfig,
  missingDataDirMessage,
  openLocalStore,
  resolveDataDir,
  type StoreFlagValues,
} from "./local_store.ts";
import { isDirectory } from "../server/data_dir.ts";
import {
  askRunningServer,
  type RunningServer,
} from "../server/control_socket.ts";
import type { BlockingStateAnswer } from "../apiserver/routes/operations_routes.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import type { CliContext } from "./contexts.ts";
import { ApiObjects } from "./api_objects.ts";

/** `kudurru blocking disable` without a duration. */
export const DEFAULT_DISABLE_MS = 5 * 60_000;

/** Shorter is almost always a typo ("5ms" for "5m"). */
const MIN_DISABLE_MS = 1000;

/** The actor of the audit rows this command writes (as apply and delete do). */
const ACTOR = "cli";

const SUBCOMMANDS = ["disable", "enable", "status"] as const;
type Subcommand = typeof SUBCOMMANDS[number];

const FLAGS_USAGE = "[--context NAME | --data-dir DIR | --config FILE]";

const OFF_BY_CONFIGURATION =
  "Blocking is off by configuration (blocking.enabled: false since the server started)\n";

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * A time for people, in the machine's time zone: "14:05:00" when it is on
 * the same day as `now`, else "2030-06-02 00:05:00".
 */
export function formatLocalTime(time: Date, now: Date = new Date()): string {
  const clock = `${pad(time.getHours())}:${pad(time.getMinutes())}:${
    pad(time.getSeconds())
  }`;
  const sameDay = time.getFullYear() === now.getFullYear() &&
    time.getMonth() === now.getMonth() && time.getDate() === now.getDate();
  if (sameDay) return clock;
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${
    pad(time.getDate())
  } ${clock}`;
}

/** Milliseconds of a DURATION argument, or a UsageError saying what is wrong. */
export function parseDisableDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    const hint = /^\d+(\.\d+)?$/.test(text)
      ? ` (did you mean "${text}s" or "${text}m"?)`
      : "";
    throw new UsageError(
      `kudurru blocking disable: "${text}" is not a duration such as 30s, 5m or 1h${hint}`,
    );
  }
  if (ms < MIN_DISABLE_MS) {
    const hint = text.endsWith("ms") && ms > 0
      ? ` (did you mean "${text.slice(0, -1)}"?)`
      : "";
    throw new UsageError(
      `kudurru blocking disable: ${text} is too short; the shortest is 1s${hint}`,
    );
  }
  if (ms > MAX_BLOCKING_DISABLE_MS) {
    throw new UsageError(
      `kudurru blocking disable: ${text} is longer than the 24h limit; to turn blocking off for good set blocking.enabled: false in the configuration`,
    );
  }
  return ms;
}

function whichSubcommand(word: string | undefined): Subcommand {
  if (word === undefined) {
    throw new UsageError(
      "kudurru blocking: missing subcommand (disable, enable or status)",
    );
  }
  const found = SUBCOMMANDS.find((s) => s === word);
  if (found) return found;
  const hint = closestMatch(word, SUBCOMMANDS);
  throw new UsageError(
    `kudurru blocking: unknown subcommand "${word}"${
      hint ? ` (did you mean "${hint}"?)` : ""
    }; use disable, enable or status`,
  );
}

/** "Blocking is on", or "off until …" for a stored value that is still in force. */
async function describeState(store: Store, io: CommandIO): Promise<string> {
  const stored = await store.getRuntime(BLOCKING_DISABLED_KEY);
  if (stored === undefined) return "Blocking is on\n";
  const until = parseDisabledUntil(stored.value);
  if (until === undefined) {
    io.stderr(
      `kudurru blocking: ignoring the stored disable time "${stored.value}", it is not a time; run "kudurru blocking enable" to clear it\n`,
    );
    return "Blocking is on\n";
  }
  const now = new Date();
  const left = until - now.getTime();
  if (left <= 0) return "Blocking is on\n";
  return pausedLine(until, left, now, stored.actor);
}

/** "Blocking is off until 14:05:00 (4m59s left, set by cli)". */
function pausedLine(
  until: number,
  leftMs: number,
  now: Date,
  actor: string | undefined,
): string {
  // Whole seconds: "4m59s left", never "4m59s812ms left".
  const leftText = formatDuration(
    Math.max(1, Math.ceil(leftMs / 1000)) * 1000,
  );
  const by = actor ? `, set by ${actor}` : "";
  return `Blocking is off until ${
    formatLocalTime(new Date(until), now)
  } (${leftText} left${by})\n`;
}

/** What status prints for the state a server's API reports. */
function stateLine(state: BlockingStateAnswer): string {
  if (!state.configured) return OFF_BY_CONFIGURATION;
  const until = state.disabledUntil === undefined
    ? NaN
    : Date.parse(state.disabledUntil);
  if (state.enabled || Number.isNaN(until)) return "Blocking is on\n";
  // The server's count of what is left: this machine's clock may differ.
  const leftMs = (state.remainingSeconds ?? 1) * 1000;
  return pausedLine(until, leftMs, new Date(), state.setBy);
}

/**
 * blocking.enabled as kudurru.yaml (and this shell's KUDURRU_* variables)
 * say now, or undefined when the configuration does not load (reported).
 */
function configuredEnabled(
  values: StoreFlagValues,
  io: CommandIO,
): boolean | undefined {
  try {
    return loadLocalConfig(values).blocking.enabled;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr(`kudurru blocking: ${err.message}; showing the stored state\n`);
    return undefined;
  }
}

/** blocking.enabled in the configuration a running server reported. */
function runningEnabled(config: unknown): boolean | undefined {
  const blocking = (config as { blocking?: { enabled?: unknown } } | null)
    ?.blocking;
  return typeof blocking?.enabled === "boolean" ? blocking.enabled : undefined;
}

/**
 * `blocking status`: what the server running on the data directory does
 * (blocking.enabled as it started with, and the stored disable time, which
 * it follows within a second); kudurru.yaml only counts from the next
 * start, and is labelled so.
 */
async function runStatus(
  values: StoreFlagValues,
  io: CommandIO,
  askServer: AskServer,
): Promise<number> {
  const dataDir = resolveDataDir(values);
  // Asking must not create a data directory (a mistyped --data-dir).
  if (!(await isDirectory(dataDir))) {
    throw new Error(missingDataDirMessage(dataDir));
  }
  const inFile = configuredEnabled(values, io);
  const server = await askServer(dataDir);
  const nextStart = (enabled: boolean) =>
    `kudurru.yaml says blocking.enabled: ${enabled} (takes effect at the next start)\n`;
  if (server.state === "running") {
    const enabled = runningEnabled(server.running.config);
    const lines = enabled === false
      ? OFF_BY_CONFIGURATION
      : await withStore(values, (store) => describeState(store, io));
    io.stdout(lines);
    if (inFile !== undefined && enabled !== undefined && inFile !== enabled) {
      io.stdout(nextStart(inFile));
    }
    return 0;
  }
  if (server.state === "unknown") {
    io.stderr(
      `kudurru blocking: cannot ask the server running on ${dataDir}: ${server.why}; showing kudurru.yaml and the stored state\n`,
    );
  }
  if (inFile === false) {
    io.stdout(
      server.state === "absent"
        ? `No server is running on ${dataDir}; ${nextStart(false)}`
        : nextStart(false),
    );
    return 0;
  }
  io.stdout(await withStore(values, (store) => describeState(store, io)));
  return 0;
}

async function withStore<T>(
  values: StoreFlagValues,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openLocalStore(values, { readOnly: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** How status learns what the server on a data directory runs with. */
export type AskServer = (dataDir: string) => Promise<RunningServer>;

async function run(
  args: string[],
  io: CommandIO,
  askServer: AskServer,
): Promise<number> {
  const { values, positionals } = parseFlags("blocking", args, TARGET_FLAGS);
  const [word, ...rest] = positionals;
  const sub = whichSubcommand(word);
  const maxArgs = sub === "disable" ? 1 : 0;
  if (rest.length > maxArgs) {
    throw new UsageError(
      `kudurru blocking ${sub}: unexpected argument "${rest[maxArgs]}"`,
    );
  }
  // Check the duration before touching the data directory.
  const forMs = sub === "disable" && rest[0] !== undefined
    ? parseDisableDuration(rest[0])
    : DEFAULT_DISABLE_MS;
  const target = await resolveTarget("blocking", values, io);
  if (target.kind === "api") {
    return await runOverApi(target.context, sub, rest[0], forMs, io);
  }
  if (sub === "status") return await runStatus(target.store, io, askServer);
  const store = await openLocalStore(target.store);
  try {
    if (sub === "disable") {
      const until = await disableBlocking(store, forMs, { actor: ACTOR });
      io.stdout(
        `Blocking is off until ${formatLocalTime(until)} (${
          formatDuration(forMs)
        })\n`,
      );
      return 0;
    }
    await enableBlocking(store, { actor: ACTOR });
    io.stdout("Blocking is on\n");
    return 0;
  } finally {
    await store.close();
  }
}

/** The subcommand on a context's server, through /api/v1/blocking. */
async function runOverApi(
  context: CliContext,
  sub: Subcommand,
  forText: string | undefined,
  forMs: number,
  io: CommandIO,
): Promise<number> {
  using api = await ApiObjects.open(context);
  if (sub === "status") {
    const state = await api.call("GET", "/api/v1/blocking");
    io.stdout(stateLine(state as BlockingStateAnswer));
    return 0;
  }
  if (sub === "enable") {
    await api.call("PUT", "/api/v1/blocking", { enabled: true });
    io.stdout("Blocking is on\n");
    return 0;
  }
  const state = await api.call("PUT", "/api/v1/blocking", {
    enabled: false,
    ...(forText !== undefined && { for: forText }),
  }) as BlockingStateAnswer;
  const until = state.disabledUntil === undefined
    ? Date.now() + forMs
    : Date.parse(state.disabledUntil);
  io.stdout(
    `Blocking is off until ${formatLocalTime(new Date(until))} (${
      formatDuration(forMs)
    })\n`,
  );
  return 0;
}

/** `blocking`; tests substitute how status asks the running server. */
export function makeBlockingCommand(
  opts: { askServer?: AskServer } = {},
): Command {
  const askServer = opts.askServer ?? askRunningServer;
  return {
    ...blockingCommandText,
    run: (args, io) => run(args, io, askServer),
  };
}

const blockingCommandText = {
  name: "blocking",
  summary: "Turn blocking off for a while (every node), back on, or show it",
  usage: `  kudurru blocking disable [DURATION] ${FLAGS_USAGE}
      Turn blocking off on every node until DURATION from now (default 5m;
      30s, 5m, 1h30m …; at least 1s, at most 24h). It comes back on by itself.
  kudurru blocking enable ${FLAGS_USAGE}
      Turn blocking back on now.
  kudurru blocking status ${FLAGS_USAGE}
      Print what the server running on the data directory does: "Blocking is
      on", "Blocking is off until <time> (<left> left)", or that its
      configuration turns it off (blocking.enabled: false). kudurru.yaml is
      read when kudurru starts; when it now says otherwise, status says so.
  Works on the server of --context, or of the current context (kudurru login);
  with --data-dir or --config, or when not logged in, on this machine's data
  directory.`,
};

export const blockingCommand: Command = makeBlockingCommand();
