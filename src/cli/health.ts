/**
 * `kudurru health [--ready|--live|--startup]`: asks the local server's ops
 * listener and exits 0 when healthy, 1 otherwise, saying why. It is the
 * container HEALTHCHECK (`kudurru health --ready`): the distroless image
 * has no curl. The address comes from --url, else listeners.ops.address of
 * the configuration (an any-address such as 0.0.0.0 is asked on loopback).
 * The probe comes from the flag, or from a --url that names one.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { DEFAULT_CONFIG_PATH, loadConfig } from "../config/load.ts";
import { parseListenAddress } from "../listeners/listen_address.ts";
import { machineFacts } from "../server/machine.ts";
import { parseDuration } from "../config/duration.ts";

/** Where the ops listener is when nothing says otherwise. */
export const DEFAULT_OPS_URL = "http://127.0.0.1:8081";
const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 24 * 3600_000;

const PROBES = {
  ready: "/healthz/ready",
  live: "/healthz/live",
  startup: "/healthz/startup",
} as const;
type Probe = keyof typeof PROBES;

/** The ops listener's URL for a configured address ("0.0.0.0:8081" → loopback). */
export function opsUrlFor(address: string): string {
  const { hostname, port } = parseListenAddress(address);
  const host = hostname === "0.0.0.0"
    ? "127.0.0.1"
    : hostname === "::"
    ? "[::1]"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  return `http://${host}:${port}`;
}

/** The probe a path names ("/healthz/live" → live), if any. */
function probeOfPath(pathname: string): Probe | undefined {
  return (Object.keys(PROBES) as Probe[]).find((p) => PROBES[p] === pathname);
}

/**
 * What to ask: `base` + the probe's path, or `base` as it is when its path
 * names a probe already (…/healthz/live): then that probe is the one asked
 * and printed, and a flag naming another one is a usage error rather than a
 * silent choice between the two.
 */
function probeTarget(
  base: string,
  flag: Probe | undefined,
): { url: URL; probe: Probe } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(
      `kudurru health: --url "${base}" is not a URL (such as ${DEFAULT_OPS_URL})`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`kudurru health: --url must be http:// or https://`);
  }
  if (!url.pathname.startsWith("/healthz/")) {
    const probe = flag ?? "ready";
    url.pathname = url.pathname.replace(/\/$/, "") + PROBES[probe];
    return { url, probe };
  }
  const probe = probeOfPath(url.pathname);
  if (probe === undefined) {
    throw new UsageError(
      `kudurru health: --url "${base}" names no probe; the probes are ${
        Object.values(PROBES).join(", ")
      }`,
    );
  }
  if (flag !== undefined && flag !== probe) {
    throw new UsageError(
      `kudurru health: --${flag} conflicts with --url "${base}", which asks the ${probe} probe; drop one`,
    );
  }
  return { url, probe };
}

/**
 * The ops URL of the configuration. A configuration that does not load is an
 * error, not a reason to guess: the default address could be another
 * server's, reported healthy. (No file at all is not an error: loadConfig
 * then uses the embedded defaults.)
 */
function configuredUrl(
  config: string | undefined,
  env: Record<string, string>,
): string {
  try {
    const facts = machineFacts();
    const loaded = loadConfig({
      ...(config ? { path: config } : {}),
      env,
      isRoot: facts.isRoot,
      hostname: facts.hostname,
      cwd: facts.cwd,
    });
    return opsUrlFor(loaded.config.listeners.ops.address);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `cannot find the ops listener: ${why} (fix the configuration, or give the listener with --url, such as ${DEFAULT_OPS_URL})`,
      { cause: err },
    );
  }
}

/** Lines saying why a /healthz/ready body is not ready. */
function reasonsOf(body: unknown): string[] {
  const { checks, reason } = (body ?? {}) as {
    checks?: unknown;
    reason?: unknown;
  };
  // /healthz/startup says why in one field; /healthz/ready per check.
  if (!Array.isArray(checks)) {
    return typeof reason === "string" ? [`  ${reason}`] : [];
  }
  return checks
    .filter((c) => c?.ready !== true)
    .map((c) =>
      `  ${String(c?.name ?? "?")}: ${String(c?.reason ?? "not ready")}`
    );
}

export const healthCommand: Command = {
  name: "health",
  // Docker's HEALTHCHECK reserves exit code 2: a mistyped flag is unhealthy.
  usageExitCode: 1,
  summary: "Check the local server's health (exit 0 when healthy)",
  usage:
    "  kudurru health [--ready | --live | --startup] [--url URL] [--config FILE] [--timeout 5s]\n" +
    "  Asks the ops listener (listeners.ops.address; --url overrides it, such as http://127.0.0.1:8081).\n" +
    "  --ready (the default) fails while starting, in lameduck, or when a role is not ready, printing why.\n" +
    "  A --url whose path names a probe (http://127.0.0.1:8081/healthz/live) asks that probe;\n" +
    "  a flag naming another probe is then an error.\n" +
    `  Without --url, a configuration (--config, $KUDURRU_CONFIG or ${DEFAULT_CONFIG_PATH}) that does not load is an error.\n` +
    "  Exit 0: healthy; 1: not healthy, not reachable, no usable configuration, or a usage error. For container health checks.",
  async run(args, io) {
    const { values } = parseFlags("health", args, {
      ready: { type: "boolean" },
      live: { type: "boolean" },
      startup: { type: "boolean" },
      url: { type: "string" },
      config: { type: "string", short: "c" },
      timeout: { type: "string" },
    }, 0);
    const chosen = (Object.keys(PROBES) as Probe[]).filter((p) => values[p]);
    if (chosen.length > 1) {
      throw new UsageError(
        "kudurru health: choose one of --ready, --live, --startup",
      );
    }
    const timeoutMs = values.timeout === undefined
      ? DEFAULT_TIMEOUT_MS
      : parseDuration(values.timeout);
    if (timeoutMs === undefined || timeoutMs <= 0) {
      throw new UsageError(
        `kudurru health: --timeout "${values.timeout}" is not a positive duration (such as 5s)`,
      );
    }
    if (timeoutMs > MAX_TIMEOUT_MS) {
      // A timer beyond 2^31 - 1 ms fires at once: a healthy server would
      // be reported as not answering.
      throw new UsageError(
        `kudurru health: --timeout "${values.timeout}" is longer than 24h`,
      );
    }
    const base = values.url ?? configuredUrl(values.config, envOf(io));
    const { url, probe } = probeTarget(base, chosen[0]);
    return await ask(url, probe, timeoutMs, io);
  },
};

/** The KUDURRU_* variables the configuration reads. */
function envOf(io: { env: (name: string) => string | undefined }) {
  try {
    return Deno.env.toObject();
  } catch {
    // Without --allow-env: only what the command's io can tell.
    const config = io.env("KUDURRU_CONFIG");
    return config === undefined ? {} : { KUDURRU_CONFIG: config };
  }
}

async function ask(
  url: URL,
  probe: Probe,
  timeoutMs: number,
  io: { stdout: (t: string) => void; stderr: (t: string) => void },
): Promise<number> {
  const control = new AbortController();
  const timer = setTimeout(() => control.abort(), timeoutMs);
  try {
    const res = await fetch(url, { signal: control.signal });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.ok) {
      io.stdout(`${probe}: ok (${url})\n`);
      return 0;
    }
    const reasons = reasonsOf(body);
    io.stdout(
      `${probe}: not ok, HTTP ${res.status} (${url})\n` +
        (reasons.length > 0 ? reasons.join("\n") + "\n" : ""),
    );
    return 1;
  } catch (err) {
    const what = control.signal.aborted
      ? `no answer from ${url} within ${timeoutMs / 1000} s`
      : `cannot connect to ${url}: ${fetchFailure(err)}`;
    io.stderr(
      `kudurru health: ${what} (is kudurru serve running, and is listeners.ops.address right?)\n`,
    );
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why a fetch failed, in a few words ("connection refused"). Deno's TypeError
 * says only "fetch failed"; its cause holds the chain, such as "error sending
 * request for url (…): client error (Connect): tcp connect error: Connection
 * refused (os error 111)", whose last link says what happened.
 */
export function fetchFailure(err: unknown): string {
  const inner = err instanceof Error && err.cause !== undefined
    ? err.cause
    : err;
  const chain = inner instanceof Error ? inner.message : String(inner);
  const last = chain.split(": ").at(-1)!.replace(/\s*\(os error \d+\)$/, "");
  // "Connection refused" reads as a sentence; leave names ("UnknownIssuer").
  return /^[A-Z][a-z]+(\s|$)/.test(last)
    ? last[0]!.toLowerCase() + last.slice(1)
    : last;
}
