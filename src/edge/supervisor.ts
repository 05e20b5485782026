/**
 * Runs dnsdist as a child process for `kudurru edge run`: renders the
 * configuration, has dnsdist check it, swaps it in atomically, starts
 * `dnsdist --supervised --disable-syslog -C FILE`, and keeps it running:
 *
 * - it dies unexpectedly: started again from the same file, after a pause
 *   that doubles while it keeps dying (a dnsdist that ran a while resets it);
 * - the backends change (setBackends): after a quiet period, so a rollout
 *   that changes many nodes costs one restart, the new configuration is
 *   rendered and checked, and only a configuration dnsdist accepts replaces
 *   the file and the process; one it refuses is logged and the running
 *   dnsdist keeps the old one;
 * - stop(signal): the signal goes to dnsdist (SIGKILL after a grace period)
 *   and stop resolves to its exit code, for the supervisor to exit with.
 *
 * dnsdist 1.7 reads its configuration once, at start, so a change is a
 * restart: the listeners are closed for the moment between the old process
 * exiting and the new one binding.
 */
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { formatEndpoint } from "./address.ts";
import { checkDnsdistConfig } from "./dnsdist_check.ts";
import { renderDnsdistLua } from "./dnsdist_lua.ts";
import { type EdgeCredentials, generateCredentials } from "./credentials.ts";
import {
  backendsFromList,
  type EdgeBackend,
  type EdgeTopology,
  withBackends,
} from "./topology.ts";

/** The live configuration's file name in the run directory. */
export const CONFIG_FILE = "dnsdist.conf";

/** How long backends must stay unchanged before dnsdist restarts for them. */
export const RESTART_DEBOUNCE_MS = 5_000;

export interface SupervisorOptions {
  topology: EdgeTopology;
  /** Where the configuration is written (created, mode 0700). */
  runDir: string;
  logger: Logger;
  /** The dnsdist executable. @default "dnsdist" (from PATH) */
  dnsdist?: string;
  /** @default RESTART_DEBOUNCE_MS */
  restartDebounceMs?: number;
  /** The first pause before starting a dnsdist that died. @default 1000 */
  backoffFirstMs?: number;
  /** The longest pause. @default 30000 */
  backoffMaxMs?: number;
  /** A dnsdist that ran this long resets the pause. @default 30000 */
  stableAfterMs?: number;
  /** How long dnsdist has to exit on a signal before SIGKILL. @default 10000 */
  stopGraceMs?: number;
  /**
   * Renders the configuration. @default renderDnsdistLua. Tests give one
   * that dnsdist refuses, to see the running process kept.
   */
  render?: (topology: EdgeTopology, credentials: EdgeCredentials) => string;
}

/** How to reach the running dnsdist's API. */
export interface DnsdistApi {
  /** "http://127.0.0.1:8083" */
  url: string;
  apiKey: string;
}

/** One dnsdist process. */
interface Run {
  process: Deno.ChildProcess;
  startedAt: number;
  exit: Promise<Deno.CommandStatus>;
  output: Promise<void>;
  /** We asked it to exit (restart or stop): its exit is no failure. */
  expected: boolean;
  credentials: EdgeCredentials;
}

type StopSignal = "SIGTERM" | "SIGINT";

export class EdgeSupervisor {
  readonly #opts: SupervisorOptions;
  readonly #log: Logger;
  readonly #configPath: string;
  #topology: EdgeTopology;
  #pending: EdgeTopology | undefined;
  #run: Run | undefined;
  #credentials: EdgeCredentials | undefined;
  #queue: Promise<void> = Promise.resolve();
  #debounce: ReturnType<typeof setTimeout> | undefined;
  #respawn: ReturnType<typeof setTimeout> | undefined;
  #backoffMs: number;
  #stopping = false;
  #starts = 0;
  #lastExit: Deno.CommandStatus | undefined;
  #resolveDone!: (code: number) => void;
  /** Resolves to the exit code once stop() has finished. */
  readonly done: Promise<number>;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
    this.#log = opts.logger;
    this.#topology = opts.topology;
    this.#configPath = join(opts.runDir, CONFIG_FILE);
    this.#backoffMs = opts.backoffFirstMs ?? 1000;
    this.done = new Promise((resolve) => this.#resolveDone = resolve);
  }

  /** The topology of the running configuration. */
  get topology(): EdgeTopology {
    return this.#topology;
  }

  /** The live configuration file. */
  get configPath(): string {
    return this.#configPath;
  }

  /** How many dnsdist processes were started so far. */
  get starts(): number {
    return this.#starts;
  }

  /** The running dnsdist's process id. */
  get pid(): number | undefined {
    return this.#run?.process.pid;
  }

  /** True until stop() is called. */
  get live(): boolean {
    return !this.#stopping;
  }

  /** The API of the running dnsdist, or undefined while none runs. */
  api(): DnsdistApi | undefined {
    const run = this.#run;
    if (run === undefined) return undefined;
    return {
      url: `http://${formatEndpoint(this.#topology.api)}`,
      apiKey: run.credentials.apiKey,
    };
  }

  /**
   * Renders, checks and installs the configuration and starts dnsdist.
   *
   * @throws {Error} when dnsdist refuses the configuration or cannot be run
   */
  async start(): Promise<void> {
    await Deno.mkdir(this.#opts.runDir, { recursive: true, mode: 0o700 });
    const prepared = await this.#prepare(this.#topology);
    if (typeof prepared === "string") throw new Error(prepared);
    this.#credentials = prepared;
    this.#spawn(prepared);
  }

  /**
   * The kudurru nodes now ("10.0.0.1:53" or backends). dnsdist restarts
   * with them once they stay the same for the debounce period; the same set
   * as now changes nothing.
   *
   * @throws {EdgeTopologyError} for an address that is not one, or an empty list
   */
  setBackends(list: readonly (string | EdgeBackend)[]): void {
    if (this.#stopping) return;
    const backends = list.every((b) => typeof b === "string")
      ? backendsFromList(list as string[])
      : list as EdgeBackend[];
    if (backends.length === 0) {
      throw new Error("no backends: dnsdist keeps the ones it has");
    }
    const wanted = this.#pending ?? this.#topology;
    if (sameBackends(wanted.backends, backends)) return;
    if (sameBackends(this.#topology.backends, backends)) {
      // Back to what runs: nothing to restart.
      this.#pending = undefined;
      clearTimeout(this.#debounce);
      this.#debounce = undefined;
      return;
    }
    this.#pending = withBackends(this.#topology, backends);
    clearTimeout(this.#debounce);
    const delay = this.#opts.restartDebounceMs ?? RESTART_DEBOUNCE_MS;
    this.#log.info("Backends changed; restarting dnsdist when they settle", {
      backends: backends.map((b) => formatEndpoint(b.address)).join(","),
      afterMs: delay,
    });
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#enqueue(() => this.#applyPending());
    }, delay);
  }

  /**
   * Sends `signal` to dnsdist and resolves to its exit code (128 + the
   * signal's number when the signal ended it, as a shell reports it); 0
   * when no dnsdist was running. A second call sends SIGKILL.
   */
  async stop(signal: StopSignal = "SIGTERM"): Promise<number> {
    if (this.#stopping) {
      this.#kill(this.#run, "SIGKILL");
      return await this.done;
    }
    this.#stopping = true;
    clearTimeout(this.#debounce);
    clearTimeout(this.#respawn);
    this.#pending = undefined;
    await this.#queue;
    const status = await this.#stopRun(signal);
    const code = status?.code ?? 0;
    this.#log.info("dnsdist stopped", { code, signal: status?.signal });
    this.#resolveDone(code);
    return code;
  }

  /** Runs `task` after the ones before it: restarts never overlap. */
  #enqueue(task: () => Promise<void>): void {
    this.#queue = this.#queue.then(task).catch((error) => {
      this.#log.error("The dnsdist supervisor failed a step", { error });
    });
  }

  async #applyPending(): Promise<void> {
    const next = this.#pending;
    this.#pending = undefined;
    if (next === undefined || this.#stopping) return;
    const prepared = await this.#prepare(next);
    if (typeof prepared === "string") {
      this.#log.error(
        "The new dnsdist configuration was refused; dnsdist keeps running with the old one",
        { problem: prepared },
      );
      return;
    }
    if (this.#stopping) return;
    this.#topology = next;
    this.#credentials = prepared;
    await this.#stopRun("SIGTERM");
    if (this.#stopping) return;
    this.#backoffMs = this.#opts.backoffFirstMs ?? 1000;
    this.#spawn(prepared);
    this.#log.info("dnsdist restarted with the new backends", {
      backends: next.backends.map((b) => b.name).join(","),
    });
  }

  /**
   * Renders and checks `topology`; when dnsdist accepts it, renames it over
   * the live file and returns its credentials, else returns why not.
   */
  async #prepare(topology: EdgeTopology): Promise<EdgeCredentials | string> {
    const credentials = generateCredentials();
    let text: string;
    try {
      text = (this.#opts.render ?? renderDnsdistLua)(topology, credentials);
    } catch (error) {
      return (error as Error).message;
    }
    const temp = join(
      this.#opts.runDir,
      `.${CONFIG_FILE}.${crypto.randomUUID().slice(0, 8)}.tmp`,
    );
    try {
      // 0600: the file holds the PROXYv2 secret and the console key.
      await Deno.writeTextFile(temp, text, { mode: 0o600, createNew: true });
      const check = await checkDnsdistConfig(temp, this.#opts.dnsdist);
      if (!check.ok) {
        return `dnsdist --check-config refuses it: ${check.output}`;
      }
      await Deno.rename(temp, this.#configPath);
      return credentials;
    } finally {
      await Deno.remove(temp).catch(() => {});
    }
  }

  #spawn(credentials: EdgeCredentials): void {
    if (this.#stopping) return;
    const process = new Deno.Command(this.#opts.dnsdist ?? "dnsdist", {
      args: ["--supervised", "--disable-syslog", "-C", this.#configPath],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#starts++;
    const log = this.#log.with({ dnsdistPid: process.pid });
    const run: Run = {
      process,
      startedAt: Date.now(),
      exit: process.status,
      output: Promise.all([
        logLines(process.stdout, (line) => log.info(line, { from: "dnsdist" })),
        logLines(process.stderr, (line) => log.warn(line, { from: "dnsdist" })),
      ]).then(() => {}),
      expected: false,
      credentials,
    };
    this.#run = run;
    log.info("dnsdist started", { config: this.#configPath });
    run.exit.then((status) => this.#exited(run, status));
  }

  #exited(run: Run, status: Deno.CommandStatus): void {
    this.#lastExit = status;
    if (this.#run === run) this.#run = undefined;
    if (run.expected || this.#stopping) return;
    const ranMs = Date.now() - run.startedAt;
    if (ranMs >= (this.#opts.stableAfterMs ?? 30_000)) {
      this.#backoffMs = this.#opts.backoffFirstMs ?? 1000;
    }
    const pause = this.#backoffMs;
    this.#backoffMs = Math.min(pause * 2, this.#opts.backoffMaxMs ?? 30_000);
    this.#log.error("dnsdist exited unexpectedly; starting it again", {
      code: status.code,
      signal: status.signal,
      ranMs,
      retryMs: pause,
    });
    this.#respawn = setTimeout(() => {
      this.#respawn = undefined;
      this.#enqueue(async () => {
        await run.output;
        if (this.#run === undefined && this.#credentials) {
          this.#spawn(this.#credentials);
        }
      });
    }, pause);
  }

  /** Signals the running dnsdist and waits for it (SIGKILL after the grace period). */
  async #stopRun(signal: StopSignal): Promise<Deno.CommandStatus | undefined> {
    const run = this.#run;
    if (run === undefined) return undefined;
    run.expected = true;
    this.#kill(run, signal);
    const grace = setTimeout(() => {
      this.#log.warn("dnsdist did not stop in time; killing it", {
        graceMs: this.#opts.stopGraceMs ?? 10_000,
      });
      this.#kill(run, "SIGKILL");
    }, this.#opts.stopGraceMs ?? 10_000);
    try {
      const status = await run.exit;
      await run.output;
      return status;
    } finally {
      clearTimeout(grace);
      if (this.#run === run) this.#run = undefined;
    }
  }

  #kill(run: Run | undefined, signal: Deno.Signal): void {
    try {
      run?.process.kill(signal);
    } catch {
      // It has exited already.
    }
  }

  /** The last dnsdist exit seen (for tests and messages). */
  get lastExit(): Deno.CommandStatus | undefined {
    return this.#lastExit;
  }
}

function sameBackends(a: readonly EdgeBackend[], b: readonly EdgeBackend[]) {
  const key = (list: readonly EdgeBackend[]) =>
    list.map((x) => formatEndpoint(x.address)).sort().join(",");
  return key(a) === key(b);
}

/** Calls `line` for each line of a child's output stream, to its end. */
async function logLines(
  stream: ReadableStream<Uint8Array>,
  line: (text: string) => void,
): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    const lines = rest.split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) if (l.trim() !== "") line(l.trimEnd());
  }
  if (rest.trim() !== "") line(rest.trimEnd());
}
