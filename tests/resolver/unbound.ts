/**
 * Unbound from Debian as a recursive stand-in: it forwards everything to one
 * loopback server (so nothing ever leaves the machine) and answers from its
 * own cache.
 */
import { join } from "node:path";
import { freePort, hasIpv6Loopback } from "../interop/free_port.ts";
import { type RunningServer, spawnServer } from "../interop/server_process.ts";

/** Starts `unbound -d` forwarding "." to 127.0.0.1@forwardPort. */
export async function startUnbound(
  forwardPort: number,
  readyZone: string,
): Promise<RunningServer> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-unbound-" });
  try {
    const port = freePort();
    const conf = join(dir, "unbound.conf");
    await Deno.writeTextFile(
      conf,
      unboundConfig(dir, port, forwardPort, readyZone),
    );
    return await spawnServer({
      label: "Unbound",
      command: "unbound",
      args: ["-d", "-c", conf],
      port,
      tempDir: dir,
      readyZone,
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
): string {
  const interfaces = hasIpv6Loopback() ? ["127.0.0.1", "::1"] : ["127.0.0.1"];
  return [
    "server:",
    ...interfaces.map((a) => `  interface: ${a}`),
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
