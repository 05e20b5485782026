/**
 * NSD and Knot as reference servers: each runs in the foreground from a
 * temporary directory, on a free loopback port (127.0.0.1 and ::1), with
 * rate limiting off and the zone files checked before start.
 */
import { join } from "node:path";
import { freePort, hasIpv6Loopback } from "../../src/testing/free_port.ts";
import {
  type RunningServer,
  spawnServer,
} from "../../src/testing/server_process.ts";

export type { RunningServer } from "../../src/testing/server_process.ts";

/** One zone to serve: its name (with or without the dot) and zone-file text. */
export interface ZoneText {
  name: string;
  text: string;
}

/**
 * The CHAOS identity and version both peers report, so `id.server` and
 * `version.bind` answers compare equal.
 */
export const PEER_IDENTITY = "interop";

function fqdn(name: string): string {
  return name.endsWith(".") ? name : `${name}.`;
}

function fileName(zone: string): string {
  return `${fqdn(zone).slice(0, -1) || "root"}.zone`;
}

async function writeZones(dir: string, zones: ZoneText[]): Promise<void> {
  if (zones.length === 0) {
    throw new Error("Cannot start a peer server without zones");
  }
  for (const z of zones) {
    await Deno.writeTextFile(join(dir, fileName(z.name)), z.text);
  }
}

async function run(command: string, args: string[]): Promise<string | null> {
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.success) return null;
  const text = new TextDecoder();
  return text.decode(out.stdout) + text.decode(out.stderr);
}

function listenAddresses(port: number): string[] {
  return hasIpv6Loopback()
    ? [`127.0.0.1@${port}`, `::1@${port}`]
    : [`127.0.0.1@${port}`];
}

/** What NSD is set up with besides its zones. */
export interface NsdOptions {
  /** Let 127.0.0.1 and ::1 transfer every zone without a key. */
  transferFromLoopback?: boolean;
  /**
   * Keep IXFR data (`store-ixfr`) and make it from the zone file at each
   * reload (`create-ixfr`), so a reloaded zone answers IXFR (RFC 1995).
   */
  ixfrFromZoneFile?: boolean;
}

/** Starts NSD (`nsd -d`) serving `zones`. */
export async function startNsd(
  zones: ZoneText[],
  opts: NsdOptions = {},
): Promise<RunningServer> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-nsd-" });
  try {
    await writeZones(dir, zones);
    for (const z of zones) {
      const problem = await run("nsd-checkzone", [
        fqdn(z.name),
        join(dir, fileName(z.name)),
      ]);
      if (problem !== null) {
        throw new Error(`Zone "${z.name}" does not load in NSD: ${problem}`);
      }
    }
    const port = freePort();
    const conf = join(dir, "nsd.conf");
    await Deno.writeTextFile(conf, nsdConfig(dir, port, zones, opts));
    const problem = await run("nsd-checkconf", [conf]);
    if (problem !== null) throw new Error(`Invalid nsd.conf: ${problem}`);
    return await spawnServer({
      label: "NSD",
      command: "nsd",
      args: ["-d", "-c", conf],
      port,
      tempDir: dir,
      readyZone: fqdn(zones[0]!.name),
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

function nsdConfig(
  dir: string,
  port: number,
  zones: ZoneText[],
  opts: NsdOptions = {},
): string {
  return [
    "server:",
    ...listenAddresses(port).map((a) => `  ip-address: ${a}`),
    `  port: ${port}`,
    '  username: ""',
    '  chroot: ""',
    `  zonesdir: "${dir}"`,
    '  database: ""',
    `  pidfile: "${join(dir, "nsd.pid")}"`,
    `  xfrdfile: "${join(dir, "xfrd.state")}"`,
    `  zonelistfile: "${join(dir, "zone.list")}"`,
    `  xfrdir: "${dir}"`,
    "  verbosity: 0",
    "  server-count: 1",
    "  rrl-ratelimit: 0",
    "  minimal-responses: yes",
    "  rrl-whitelist-ratelimit: 0",
    "  hide-version: no",
    `  identity: "${PEER_IDENTITY}"`,
    `  version: "${PEER_IDENTITY}"`,
    "remote-control:",
    "  control-enable: no",
    ...zones.flatMap((z) => [
      "zone:",
      `  name: "${fqdn(z.name)}"`,
      `  zonefile: "${fileName(z.name)}"`,
      ...(opts.transferFromLoopback === true
        ? ["  provide-xfr: 127.0.0.1 NOKEY", "  provide-xfr: ::1 NOKEY"]
        : []),
      ...(opts.ixfrFromZoneFile === true
        ? ["  store-ixfr: yes", "  create-ixfr: yes"]
        : []),
    ]),
  ].join("\n") + "\n";
}

/** What Knot is set up with besides its zones. */
export interface KnotOptions {
  /** Let 127.0.0.1 and ::1 transfer every zone without a key. */
  transferFromLoopback?: boolean;
  /**
   * Load a changed zone file as its difference from the zone served
   * (`zonefile-load: difference`) and keep that difference in the journal
   * (`journal-content: changes`), so a reload answers IXFR (RFC 1995).
   * The control socket is `knot.sock` in the rundir, for `knotc`.
   */
  ixfrFromDifferences?: boolean;
}

/** Starts Knot (`knotd -c`) serving `zones`. */
export async function startKnot(
  zones: ZoneText[],
  opts: KnotOptions = {},
): Promise<RunningServer> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-knot-" });
  try {
    await writeZones(dir, zones);
    const port = freePort();
    const conf = join(dir, "knot.conf");
    await Deno.writeTextFile(conf, knotConfig(dir, port, zones, opts));
    // kzonecheck lives in knot-dnssecutils; knotc zone-check needs only knot.
    const problem = await run("knotc", ["-c", conf, "zone-check"]);
    if (problem !== null) {
      throw new Error(`Zones do not load in Knot: ${problem}`);
    }
    return await spawnServer({
      label: "Knot",
      command: "knotd",
      args: ["-c", conf],
      port,
      tempDir: dir,
      readyZone: fqdn(zones[0]!.name),
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

function knotConfig(
  dir: string,
  port: number,
  zones: ZoneText[],
  opts: KnotOptions,
): string {
  const acl = opts.transferFromLoopback === true;
  const ixfr = opts.ixfrFromDifferences === true;
  return [
    "server:",
    `  rundir: "${dir}"`,
    `  listen: [ ${listenAddresses(port).join(", ")} ]`,
    `  identity: "${PEER_IDENTITY}"`,
    `  version: "${PEER_IDENTITY}"`,
    "database:",
    `  storage: "${dir}"`,
    "log:",
    "  - target: stderr",
    "    any: warning",
    "template:",
    "  - id: default",
    `    storage: "${dir}"`,
    "    zonefile-sync: -1",
    "    zonefile-load: whole",
    "    journal-content: none",
    ...(acl
      ? [
        "acl:",
        "  - id: loopback-transfer",
        "    address: [ 127.0.0.1, ::1 ]",
        "    action: transfer",
      ]
      : []),
    "zone:",
    ...zones.map((z) =>
      `  - domain: "${fqdn(z.name)}"\n    file: "${fileName(z.name)}"` +
      (acl ? "\n    acl: loopback-transfer" : "") +
      (ixfr
        ? "\n    zonefile-load: difference\n    journal-content: changes"
        : "")
    ),
  ].join("\n") + "\n";
}
