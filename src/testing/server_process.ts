/**
 * A DNS server running as a child process for a test: its stderr is kept
 * for error messages, `stop()` kills it (SIGTERM, then SIGKILL after a
 * bounded wait) and removes its temporary directory.
 */
import { query } from "./dns_client.ts";

/** A running peer server. */
export interface RunningServer extends AsyncDisposable {
  /** The loopback port it answers on (UDP and TCP). */
  readonly port: number;
  /** The child's process id, for CPU accounting in benchmarks. */
  readonly pid: number;
  /** What the server wrote to stdout and stderr so far. */
  output(): string;
  /** Kills the server and removes its temporary directory; idempotent. */
  stop(): Promise<void>;
}

/** How to start one server. */
export interface SpawnOptions {
  /** Shown in errors, e.g. "NSD". */
  label: string;
  command: string;
  args: string[];
  port: number;
  /** Removed on stop. */
  tempDir: string;
  /** A name whose SOA the server must answer before it counts as started. */
  readyZone: string;
  /** @default 20000 */
  startTimeoutMs?: number;
  env?: Record<string, string>;
  /** @default the test's own */
  cwd?: string;
  /** Ask the readiness question over TCP (a server without UDP). */
  probeTcp?: boolean;
}

/** Spawns a server and waits until it answers `readyZone` SOA (UDP unless probeTcp). */
export async function spawnServer(opts: SpawnOptions): Promise<RunningServer> {
  const child = new Deno.Command(opts.command, {
    args: opts.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  }).spawn();
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      output += text;
    }
  };
  const reading = Promise.all([collect(child.stdout), collect(child.stderr)]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (!exited) child.kill("SIGTERM");
    const killTimer = setTimeout(() => {
      if (!exited) child.kill("SIGKILL");
    }, 3000);
    await status;
    clearTimeout(killTimer);
    await reading;
    await Deno.remove(opts.tempDir, { recursive: true }).catch(() => {});
  };
  const server: RunningServer = {
    port: opts.port,
    pid: child.pid,
    output: () => output,
    stop,
    [Symbol.asyncDispose]: stop,
  };
  try {
    await waitUntilAnswering(opts, () => exited);
  } catch (error) {
    await stop();
    throw new Error(
      `${(error as Error).message}; ${opts.label} output:\n${output}`,
      { cause: error },
    );
  }
  return server;
}

async function waitUntilAnswering(
  opts: SpawnOptions,
  hasExited: () => boolean,
): Promise<void> {
  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    if (hasExited()) {
      throw new Error(`${opts.label} exited before answering`);
    }
    try {
      const reply = await query(opts.port, opts.readyZone, "SOA", {
        timeoutMs: 300,
        tcp: opts.probeTcp === true,
      });
      if (reply.rcode === "NOERROR" && reply.answers.length > 0) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `${opts.label} did not answer "${opts.readyZone}" SOA on port ${opts.port} within ${
      opts.startTimeoutMs ?? 20_000
    } ms`,
  );
}
