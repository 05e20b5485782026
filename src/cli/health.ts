/**
 * `kudurru health [--ready|--live|--startup]`: asks the local server's ops
 * listener and exits 0 when healthy, 1 otherwise, saying why. It is the
 * container HEALTHCHECK (`kudurru health --ready`): the distroless image
 * has no curl. The address comes from --url, else listeners.ops.address of
 * the configuration (an any-address such as 0.0.0.0 is asked on loopback).
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { loadConfig } from "../config/load.ts";
import { parseListenAddress } from "../listeners/listen_address.ts";
import { machineFacts } from "./machine.ts";
import { parseDuration } from "../config/duration.ts";

/** Where the ops listener is when nothing says otherwise. */
export const DEFAULT_OPS_URL = "http://127.0.0.1:8081";
const DEFAULT_TIMEOUT_MS = 5_000;

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

/** The probe URL: `base` + the probe's path, unless `base` names a /healthz/ path. */
function probeUrl(base: string, probe: Probe): URL {
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
    url.pathname = url.pathname.replace(/\/$/, "") + PROBES[probe];
  }
  return url;
}

/** The ops URL of the configuration, or the default when it cannot be read. */
function configuredUrl(
  config: string | undefined,
  env: Record<string, string>,
): { url: string; note?: string } {
  try {
    const facts = machineFacts();
    const loaded = loadConfig({
      ...(config ? { path: config } : {}),
      env,
      isRoot: facts.isRoot,
      hostname: facts.hostname,
      cwd: facts.cwd,
    });
    return { url: opsUrlFor(loaded.config.listeners.ops.address) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      url: DEFAULT_OPS_URL,
      note: `cannot read the configuration (${why}); asking ${DEFAULT_OPS_URL}`,
    };
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
  summary: "Check the local server's health (exit 0 when healthy)",
  usage:
    "  kudurru health [--ready | --live | --startup] [--url URL] [--config FILE] [--timeout 5s]\n" +
    "  Asks the ops listener (listeners.ops.address; --url overrides it, such as http://127.0.0.1:8081).\n" +
    "  --ready (the default) fails while starting, in lameduck, or when a role is not ready, printing why.\n" +
    "  Exit 0: healthy; 1: not healthy or not reachable. For container health checks.",
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
    const probe = chosen[0] ?? "ready";
    const timeoutMs = values.timeout === undefined
      ? DEFAULT_TIMEOUT_MS
      : parseDuration(values.timeout);
    if (timeoutMs === undefined || timeoutMs <= 0) {
      throw new UsageError(
        `kudurru health: --timeout "${values.timeout}" is not a positive duration (such as 5s)`,
      );
    }
    let base = values.url;
    if (base === undefined) {
      const found = configuredUrl(values.config, envOf(io));
      if (found.note) io.stderr(`kudurru health: ${found.note}\n`);
      base = found.url;
    }
    const url = probeUrl(base, probe);
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
    const why = control.signal.aborted
      ? `no answer within ${timeoutMs / 1000} s`
      : err instanceof Error
      ? err.message
      : String(err);
    io.stderr(
      `kudurru health: cannot reach ${url}: ${why} (is kudurru serve running, and is listeners.ops.address right?)\n`,
    );
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
