/**
 * Knot at both ends of a NOTIFY, for the interop tests, each from a
 * temporary directory and listening on 127.0.0.1 only, its info log kept
 * so a test can read what Knot did:
 *
 * - as a secondary: one zone loaded from a zone file (so Knot answers its
 *   SOA and the start can be awaited, as peers.ts does), whose primary is
 *   a loopback port nobody listens on, and an ACL that takes NOTIFY from
 *   127.0.0.1 signed with one TSIG key;
 * - as a primary: one zone, notifying one loopback port when it loads.
 *
 * Neither knows any other server.
 */
import { join } from "node:path";
import type { TsigKey } from "../../src/dns/tsig/tsig.ts";
import { freePort } from "../../src/testing/free_port.ts";
import {
  type RunningServer,
  spawnServer,
} from "../../src/testing/server_process.ts";

/** A running Knot secondary. */
export interface KnotSecondary extends RunningServer {
  /** The zone, fully qualified. */
  readonly zone: string;
  /** The serial of the zone file Knot loaded. */
  readonly serial: number;
  /** The port of the primary Knot refreshes from (nothing listens there). */
  readonly primaryPort: number;
}

/** What the secondary is set up with. */
export interface KnotSecondaryOptions {
  zone: string;
  /** The key NOTIFYs must be signed with (Knot's ACL). */
  key: TsigKey;
  /** The serial of the zone Knot starts with. @default 1 */
  serial?: number;
  /** Knot's own port. @default a free one */
  port?: number;
  /** The primary's port (transfers signed with `key`). @default a free one nobody listens on */
  primaryPort?: number;
}

/** Starts `knotd` as a secondary of `opts.zone`; fails when knotd is missing. */
export async function startKnotSecondary(
  opts: KnotSecondaryOptions,
): Promise<KnotSecondary> {
  const zone = opts.zone.endsWith(".") ? opts.zone : `${opts.zone}.`;
  const serial = opts.serial ?? 1;
  const dir = await Deno.makeTempDir({ prefix: "kudurru-knot-secondary-" });
  try {
    const file = "secondary.zone";
    await Deno.writeTextFile(join(dir, file), zoneText(zone, serial));
    const port = opts.port ?? freePort();
    const primaryPort = opts.primaryPort ?? freePort();
    const keyId = opts.key.name.endsWith(".")
      ? opts.key.name
      : `${opts.key.name}.`;
    const conf = join(dir, "knot.conf");
    await Deno.writeTextFile(
      conf,
      [
        ...serverSection(dir, port),
        "key:",
        `  - id: ${keyId}`,
        `    algorithm: ${opts.key.algorithm}`,
        `    secret: ${btoa(String.fromCharCode(...opts.key.secret))}`,
        "remote:",
        "  - id: primary",
        `    address: 127.0.0.1@${primaryPort}`,
        `    key: ${keyId}`,
        "acl:",
        "  - id: notify-from-primary",
        "    address: 127.0.0.1",
        `    key: ${keyId}`,
        "    action: notify",
        ...templateSection(dir),
        "zone:",
        `  - domain: "${zone}"`,
        `    file: "${file}"`,
        "    master: primary",
        "    acl: notify-from-primary",
      ].join("\n") + "\n",
    );
    await confCheck(conf);
    const server = await spawnServer({
      label: "Knot secondary",
      command: "knotd",
      args: ["-c", conf],
      port,
      tempDir: dir,
      readyZone: zone,
    });
    return Object.assign(server, { zone, serial, primaryPort });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** A zone with an SOA, an NS and the NS's address. */
function zoneText(zone: string, serial: number): string {
  return [
    `${zone} 3600 IN SOA ns1.${zone} hostmaster.${zone} ${serial} 3600 600 86400 300`,
    `${zone} 3600 IN NS ns1.${zone}`,
    `ns1.${zone} 3600 IN A 127.0.0.1`,
  ].join("\n") + "\n";
}

/** Listening on 127.0.0.1 only; the log at info, on stderr. */
function serverSection(dir: string, port: number): string[] {
  return [
    "server:",
    `  rundir: "${dir}"`,
    `  listen: [ 127.0.0.1@${port} ]`,
    "database:",
    `  storage: "${dir}"`,
    "log:",
    "  - target: stderr",
    "    any: info",
  ];
}

/** Zones from their files, nothing written back, no journal. */
function templateSection(dir: string): string[] {
  return [
    "template:",
    "  - id: default",
    `    storage: "${dir}"`,
    "    zonefile-sync: -1",
    "    zonefile-load: whole",
    "    journal-content: none",
  ];
}

async function confCheck(conf: string): Promise<void> {
  const check = await new Deno.Command("knotc", {
    args: ["-c", conf, "conf-check"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!check.success) {
    const text = new TextDecoder();
    throw new Error(
      `Invalid knot.conf: ${text.decode(check.stdout)}${
        text.decode(check.stderr)
      }`,
    );
  }
}

/** A running Knot primary, with what `knotc` needs to reload its zone. */
export interface KnotPrimary extends RunningServer {
  /** Its knot.conf. */
  readonly conf: string;
  /** Its zone file, to rewrite before `knotc zone-reload`. */
  readonly zoneFile: string;
}

/**
 * Starts `knotd` as the primary of `zone`, sending NOTIFY to
 * 127.0.0.1@notifyPort; with `transfers`, loopback may transfer the zone,
 * and a reloaded zone file's changes are journaled so IXFR can send them.
 */
export async function startKnotPrimary(opts: {
  zone: string;
  serial: number;
  notifyPort: number;
  /** Knot's own port. @default a free one */
  port?: number;
  transfers?: boolean;
  /** The zone file's text. @default an SOA, an NS and its address */
  zoneText?: string;
}): Promise<KnotPrimary> {
  const zone = opts.zone.endsWith(".") ? opts.zone : `${opts.zone}.`;
  const dir = await Deno.makeTempDir({ prefix: "kudurru-knot-primary-" });
  try {
    const file = "primary.zone";
    await Deno.writeTextFile(
      join(dir, file),
      opts.zoneText ?? zoneText(zone, opts.serial),
    );
    const port = opts.port ?? freePort();
    const conf = join(dir, "knot.conf");
    await Deno.writeTextFile(
      conf,
      [
        ...serverSection(dir, port),
        "remote:",
        "  - id: secondary",
        `    address: 127.0.0.1@${opts.notifyPort}`,
        ...(opts.transfers
          ? [
            "acl:",
            "  - id: loopback-transfer",
            "    address: [ 127.0.0.1, ::1 ]",
            "    action: transfer",
          ]
          : []),
        ...templateSection(dir),
        "zone:",
        `  - domain: "${zone}"`,
        `    file: "${file}"`,
        "    notify: secondary",
        ...(opts.transfers
          ? [
            "    acl: loopback-transfer",
            "    zonefile-load: difference",
            "    journal-content: changes",
          ]
          : []),
      ].join("\n") + "\n",
    );
    await confCheck(conf);
    const server = await spawnServer({
      label: "Knot primary",
      command: "knotd",
      args: ["-c", conf],
      port,
      tempDir: dir,
      readyZone: zone,
    });
    return Object.assign(server, { conf, zoneFile: join(dir, file) });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}
