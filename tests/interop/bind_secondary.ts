/**
 * BIND 9 as a secondary for the interop tests: one zone from a primary on
 * loopback, transfers signed with one TSIG key (its `key` statement as
 * `kudurru tsig generate` prints it), NOTIFY taken from 127.0.0.1. BIND
 * listens on 127.0.0.1 only, recurses nowhere, has no control channel, and
 * logs to stderr.
 */
import { join } from "node:path";
import { freePort } from "../../src/testing/free_port.ts";
import {
  type RunningServer,
  spawnServer,
} from "../../src/testing/server_process.ts";

export interface BindSecondaryOptions {
  zone: string;
  primaryPort: number;
  /** A BIND `key` statement. */
  keyStatement: string;
  /** @default a free one */
  port?: number;
}

/**
 * Starts `named` in the foreground; resolves once it answers the zone's
 * SOA, that is once its first transfer succeeded.
 */
export async function startBindSecondary(
  opts: BindSecondaryOptions,
): Promise<RunningServer> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-bind-" });
  try {
    const port = opts.port ?? freePort();
    const keyName = /key\s+"([^"]+)"/.exec(opts.keyStatement)?.[1];
    if (keyName === undefined) throw new Error("no key name in the statement");
    const conf = join(dir, "named.conf");
    await Deno.writeTextFile(
      conf,
      [
        "options {",
        `  directory "${dir}";`,
        `  pid-file "${join(dir, "named.pid")}";`,
        `  session-keyfile "${join(dir, "session.key")}";`,
        `  managed-keys-directory "${dir}";`,
        `  listen-on port ${port} { 127.0.0.1; };`,
        "  listen-on-v6 { none; };",
        "  recursion no;",
        "  dnssec-validation no;",
        "  notify no;",
        "};",
        "controls { };",
        "logging {",
        "  channel to_stderr { stderr; severity info; print-category yes; };",
        "  category default { to_stderr; };",
        "  category xfer-in { to_stderr; };",
        "  category notify { to_stderr; };",
        "};",
        opts.keyStatement.trim(),
        `zone "${opts.zone}" {`,
        "  type secondary;",
        `  primaries port ${opts.primaryPort} { 127.0.0.1 key "${keyName}"; };`,
        `  file "${join(dir, "secondary.db")}";`,
        "  allow-notify { 127.0.0.1; };",
        "};",
      ].join("\n") + "\n",
    );
    const check = await new Deno.Command("named-checkconf", {
      args: [conf],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!check.success) {
      const text = new TextDecoder();
      throw new Error(
        `Invalid named.conf: ${text.decode(check.stdout)}${
          text.decode(check.stderr)
        }`,
      );
    }
    return await spawnServer({
      label: "BIND secondary",
      command: "named",
      args: ["-g", "-n", "1", "-c", conf],
      port,
      tempDir: dir,
      readyZone: opts.zone,
      startTimeoutMs: 30_000,
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}
