/**
 * kudurru as a subprocess, started the way the README starts it (scoped
 * permissions, a config file), serving objects written as YAML into its
 * objects.d. Everything it could reach beyond loopback is pointed at
 * loopback: the HTTP listeners, and the upstreams behind the first-boot root
 * forward zone.
 */
import { dirname, join } from "node:path";
import YAML from "yaml";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { serveTaskFlags } from "./serve_process.ts";
import { freePort, hasIpv6Loopback } from "./free_port.ts";
import { type RunningServer, spawnServer } from "./server_process.ts";

const ROOT = join(import.meta.dirname!, "..", "..");
const MAIN = join(ROOT, "main.ts");

/** A zone kudurru answers itself: readiness for a server that forwards the rest. */
export const LOCAL_READY_ZONE = "local.test.";

/** The DNSZone object of {@linkcode LOCAL_READY_ZONE}. */
export function localReadyZoneObject(): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: "local-test" },
    spec: { zoneName: LOCAL_READY_ZONE, type: "primary" },
  };
}

/** What the kudurru test or benchmark needs to set. */
export interface KudurruOptions {
  /** Written to objects.d/corpus.yaml. */
  objects: KObject[];
  /** A zone among `objects`; its SOA answering means kudurru is up. */
  readyZone: string;
  /** Loopback port of a server that stands in for every upstream. */
  upstreamPort: number;
  /** Reported for CHAOS id.server. @default "interop" */
  nodeName?: string;
  /** @default 60000 (the first run may compile) */
  startTimeoutMs?: number;
  /** Settings of listeners.api besides its address (e.g. cpuPercent). */
  api?: Record<string, unknown>;
  /** Top-level config sections merged over the defaults here (e.g. cache). */
  extraConfig?: Record<string, unknown>;
  /** Settings of `listeners` besides the ones here (e.g. dot, doh). */
  listeners?: Record<string, unknown>;
  /** Environment of the kudurru process besides NO_COLOR (e.g. DENO_CERT). */
  env?: Record<string, string>;
  /**
   * Serve UDP on libc sockets (`listeners.ffiSockets`, with --allow-ffi),
   * this many per address (`listeners.sockets`; TCP gets as many).
   */
  ffiSockets?: number;
  /**
   * More files of objects in objects.d, by file name: a file holds at most
   * 4 MiB, so a large zone's record sets go into several.
   */
  objectFiles?: Record<string, KObject[]>;
  /**
   * Files written into the data directory before start, by relative path
   * (bytes for a database or key restored from a backup).
   */
  dataFiles?: Record<string, string | Uint8Array>;
  /** The DNS port. @default a free one */
  port?: number;
  /**
   * The API's port, for what must know the API's address before kudurru
   * starts (an identity provider's redirect URI). @default a free one
   */
  apiPort?: number;
}

/** Starts `kudurru serve` on a free loopback port. */
export async function startKudurru(
  opts: KudurruOptions,
): Promise<RunningServer & { dataDir: string; apiUrl: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-interop-" });
  try {
    const port = opts.port ?? freePort();
    const apiPort = opts.apiPort ?? freePort();
    await Deno.mkdir(join(dir, "objects.d"));
    for (const [path, content] of Object.entries(opts.dataFiles ?? {})) {
      const file = join(dir, "data", path);
      await Deno.mkdir(dirname(file), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(file, content);
      else await Deno.writeFile(file, content, { mode: 0o600 });
    }
    await Deno.writeTextFile(
      join(dir, "objects.d", "corpus.yaml"),
      opts.objects.map((o) => YAML.stringify(withoutStatus(o))).join("---\n"),
    );
    for (const [name, objects] of Object.entries(opts.objectFiles ?? {})) {
      await Deno.writeTextFile(
        join(dir, "objects.d", name),
        objects.map((o) => YAML.stringify(withoutStatus(o))).join("---\n"),
      );
    }
    const config = join(dir, "kudurru.yaml");
    await Deno.writeTextFile(
      config,
      kudurruConfig(dir, port, apiPort, opts),
    );
    const server = await spawnServer({
      label: "kudurru",
      command: Deno.execPath(),
      // The serve task's own flags (deno.json), so these tests break when
      // the README's command would; the data directory is ./data in `dir`.
      args: [
        "run",
        ...serveTaskFlags(),
        ...(opts.ffiSockets ? ["--allow-ffi"] : []),
        MAIN,
        "serve",
        "--config",
        config,
      ],
      env: { NO_COLOR: "1", ...opts.env },
      cwd: dir,
      port,
      tempDir: dir,
      readyZone: opts.readyZone,
      startTimeoutMs: opts.startTimeoutMs ?? 60_000,
    });
    return Object.assign(server, {
      dataDir: join(dir, "data"),
      apiUrl: `http://127.0.0.1:${apiPort}`,
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * Waits for the API listener at `url` to answer: startKudurru waits for
 * DNS, and the API may come up a moment later.
 */
export async function waitForApi(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${url}/api/v1/auth/status`).catch(() => undefined);
    await res?.body?.cancel();
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the API at ${url} did not come up`);
}

/** The loader strips status anyway; leaving it out keeps the file honest. */
function withoutStatus(o: KObject): KObject {
  const { status: _status, ...rest } = o;
  return rest;
}

function kudurruConfig(
  dir: string,
  port: number,
  apiPort: number,
  opts: KudurruOptions,
): string {
  const dns = [{ address: `127.0.0.1:${port}`, protocols: ["udp", "tcp"] }];
  if (hasIpv6Loopback()) {
    dns.push({ address: `[::1]:${port}`, protocols: ["udp", "tcp"] });
  }
  const upstream = `127.0.0.1:${opts.upstreamPort}`;
  const local = () => ({ address: `127.0.0.1:${freePort()}` });
  return YAML.stringify({
    node: { name: opts.nodeName ?? "interop", dataDir: "data" },
    objectsDir: join(dir, "objects.d"),
    listeners: {
      dns,
      api: { address: `127.0.0.1:${apiPort}`, ...opts.api },
      ops: local(),
      metrics: local(),
      internal: local(),
      ...(opts.ffiSockets && {
        ffiSockets: true,
        sockets: opts.ffiSockets,
      }),
      ...opts.listeners,
    },
    upstreams: {
      groups: { default: { servers: [upstream] } },
      bootstrap: [upstream],
    },
    ...opts.extraConfig,
  });
}
