/**
 * `kudurru config import-dnsmasq FILE`: prints the `upstreams` groups and
 * conditional entries that dnsmasq's forwarding lines (`server=`, `local=`,
 * `rev-server=`, as Pi-hole and routers write them) mean, to merge into
 * kudurru.yaml. It writes no file: the operator reviews and merges.
 */
import YAML from "yaml";
import { type CommandIO, parseFlags, UsageError } from "./command.ts";
import {
  DnsmasqImportError,
  parseDnsmasqServers,
} from "../config/dnsmasq_servers.ts";

/** How the command reads FILE; tests pass their own. */
export type ReadTextFile = (path: string) => string;

/** Runs `config import-dnsmasq` with `args` (after the subcommand). */
export function runImportDnsmasq(
  args: string[],
  io: CommandIO,
  readFile: ReadTextFile,
): number {
  const { values, positionals } = parseFlags("config import-dnsmasq", args, {
    output: { type: "string", short: "o", default: "yaml" },
  }, 1);
  const format = values.output ?? "yaml";
  if (format !== "yaml" && format !== "json") {
    throw new UsageError(
      `kudurru config import-dnsmasq: --output must be yaml or json, not "${format}"`,
    );
  }
  const path = positionals[0];
  if (path === undefined) {
    throw new UsageError(
      "kudurru config import-dnsmasq: name the dnsmasq file to read",
    );
  }
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    io.stderr(`Cannot read "${path}": ${(err as Error).message}\n`);
    return 1;
  }
  let servers;
  try {
    servers = parseDnsmasqServers(text, path);
  } catch (err) {
    if (!(err instanceof DnsmasqImportError)) throw err;
    io.stderr(err.message + "\n");
    return 1;
  }
  const fragment = {
    upstreams: { groups: servers.groups, conditional: servers.conditional },
  };
  io.stdout(
    format === "json"
      ? JSON.stringify(fragment, null, 2) + "\n"
      : YAML.stringify(fragment, { lineWidth: 0 }),
  );
  if (servers.localOnly.length > 0) {
    io.stderr(
      `dnsmasq never forwards ${servers.localOnly.join(", ")}: ` +
        "serve them as primary zones in kudurru, or they go to the default group\n",
    );
  }
  if (servers.ignored > 0) {
    io.stderr(
      `${servers.ignored} line(s) that are not forwarding lines were left out\n`,
    );
  }
  return 0;
}
