/**
 * Unbound from Debian as a recursive stand-in: it forwards everything to one
 * loopback server (so nothing ever leaves the machine) and answers from its
 * own cache.
 */
import { join } from "node:path";
import { freePort, hasIpv6Loopback } from "../../src/testing/free_port.ts";
import {
  type RunningServer,
  spawnServer,
} from "../../src/testing/server_process.ts";

/** How else Unbound listens, for upstream transport tests. */
export interface UnboundOptions {
  /** Also serve DNS over TLS with this certificate (PEM texts). */
  tls?: { cert: string; key: string };
  /** With `tls`: also serve DNS over HTTPS (RFC 8484) at /dns-query. */
  https?: boolean;
  /** false: TCP only (`do-udp: no`), so an answer proves a TCP exchange. */
  udp?: boolean;
}

/**
 * A running Unbound; `tlsPort` is set when it serves DNS over TLS,
 * `httpsPort` when it serves DNS over HTTPS.
 */
export type RunningUnbound = RunningServer & {
  tlsPort?: number;
  httpsPort?: number;
};

/** Starts `unbound -d` forwarding "." to 127.0.0.1@forwardPort. */
export async function startUnbound(
  forwardPort: number,
  readyZone: string,
  opts: UnboundOptions = {},
): Promise<RunningUnbound> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-unbound-" });
  try {
    const port = freePort();
    const tlsPort = opts.tls === undefined ? undefined : freePort();
    const httpsPort = tlsPort !== undefined && opts.https
      ? freePort()
      : undefined;
    if (opts.tls !== undefined) {
      await Deno.writeTextFile(join(dir, "tls.pem"), opts.tls.cert);
      await Deno.writeTextFile(join(dir, "tls.key"), opts.tls.key);
    }
    const conf = join(dir, "unbound.conf");
    await Deno.writeTextFile(
      conf,
      unboundConfig(dir, port, forwardPort, readyZone, {
        tlsPort,
        httpsPort,
        udp: opts.udp,
      }),
    );
    const server = await spawnServer({
      label: "Unbound",
      command: "unbound",
      args: ["-d", "-c", conf],
      port,
      tempDir: dir,
      readyZone,
      // The readiness probe asks over UDP; TCP only needs a TCP probe.
      ...(opts.udp === false && { probeTcp: true }),
    });
    return Object.assign(server, {
      ...(tlsPort !== undefined && { tlsPort }),
      ...(httpsPort !== undefined && { httpsPort }),
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

function unboundConfig(
  dir: string,
  port: number,
  forwardPort: number,
  zone: string,
  ports: {
    tlsPort: number | undefined;
    httpsPort: number | undefined;
    udp: boolean | undefined;
  },
): string {
  const { tlsPort, httpsPort } = ports;
  const interfaces = hasIpv6Loopback() ? ["127.0.0.1", "::1"] : ["127.0.0.1"];
  const tls = tlsPort === undefined ? [] : [
    `  interface: 127.0.0.1@${tlsPort}`,
    `  tls-port: ${tlsPort}`,
    `  tls-service-pem: "${join(dir, "tls.pem")}"`,
    `  tls-service-key: "${join(dir, "tls.key")}"`,
  ];
  const https = httpsPort === undefined ? [] : [
    `  interface: 127.0.0.1@${httpsPort}`,
    `  https-port: ${httpsPort}`,
    '  http-endpoint: "/dns-query"',
  ];
  return [
    "server:",
    ...interfaces.map((a) => `  interface: ${a}`),
    ...tls,
    ...https,
    ...(ports.udp === false ? ["  do-udp: no"] : []),
    `  port: ${port}`,
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${join(dir, "unbound.pid")}"`,
    '  logfile: ""',
    "  use-syslog: no",
    "  verbosity: 0",
    "  num-threads: 1",
    "  do-not-query-localhost: no",
    '  module-config: "iterator"',
    "  access-control: 127.0.0.0/8 allow",
    "  access-control: ::1 allow",
    // Unbound answers .test itself unless told not to.
    `  local-zone: "${zone.split(".").slice(-2).join(".")}" nodefault`,
    "remote-control:",
    "  control-enable: no",
    "forward-zone:",
    '  name: "."',
    `  forward-addr: 127.0.0.1@${forwardPort}`,
  ].join("\n") + "\n";
}
