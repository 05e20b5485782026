/**
 * dnsmasq (Debian dnsmasq-base 2.90) as a caching forwarder for benchmarks:
 * in the foreground, on a free loopback port, forwarding everything to one
 * loopback server. It reads no config file, no /etc/resolv.conf and no
 * /etc/hosts, writes no pid file and logs to stderr, so the only server it
 * ever talks to is the one given (checked with strace: no open of those
 * files, no socket but the listener and the upstream).
 */
import { freePort } from "../../src/testing/free_port.ts";
import {
  type RunningServer,
  spawnServer,
} from "../../src/testing/server_process.ts";

/** Where dnsmasq listens and forwards. */
export interface DnsmasqPorts {
  /** Loopback port it answers on. */
  port: number;
  /** Loopback port of the only upstream. */
  upstreamPort: number;
  /** @default 10000 (larger values make dnsmasq warn about speed) */
  cacheSize?: number;
}

/** The command line: `-k` keeps it in the foreground without debug mode. */
export function dnsmasqArgs(ports: DnsmasqPorts): string[] {
  return [
    // -k, not -d: debug mode also stops forking for TCP and logs more.
    "--keep-in-foreground",
    // Any --conf-file stops /etc/dnsmasq.conf (and its conf-dir) loading; an
    // empty one does not (2.90 still opens the default).
    "--conf-file=/dev/null",
    "--no-resolv",
    "--no-poll",
    "--no-hosts",
    `--server=127.0.0.1#${ports.upstreamPort}`,
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    `--port=${ports.port}`,
    `--cache-size=${ports.cacheSize ?? 10_000}`,
    // Empty: no pid file (the default is /var/run/dnsmasq.pid).
    "--pid-file=",
    "--log-facility=-",
  ];
}

/** Starts dnsmasq forwarding to 127.0.0.1#upstreamPort; up once `readyZone` SOA answers. */
export async function startDnsmasq(
  upstreamPort: number,
  readyZone: string,
): Promise<RunningServer> {
  // spawnServer removes its temporary directory on stop; dnsmasq needs none
  // of its own, but the contract wants one.
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dnsmasq-" });
  try {
    const port = freePort();
    return await spawnServer({
      label: "dnsmasq",
      command: "/usr/sbin/dnsmasq",
      args: dnsmasqArgs({ port, upstreamPort }),
      port,
      tempDir: dir,
      readyZone,
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}
