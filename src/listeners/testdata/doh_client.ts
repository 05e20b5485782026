/**
 * What the DoH listener tests share: a listener with the test handler,
 * a CA file for the command-line clients, and curl run as a subprocess
 * (real HTTP/2 and HTTP/1.1 over real TLS) with its status, headers and
 * body read back.
 */
import { join } from "node:path";
import { memoryLogger } from "../../log/logger.ts";
import type { TestCertificates } from "../../upstream/testdata/certs.ts";
import { type DohServerOptions, serveDoh } from "../doh.ts";
import { emptySocketCounters } from "../worker_messages.ts";
import { createTestHandler } from "./test_handler.ts";

/** RFC 4648 §5 base64url without padding, as RFC 8484 §4.1 sends `dns`. */
export function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** A directory for CA files and curl's output, removed on dispose. */
export async function scratchDir(): Promise<
  AsyncDisposable & { path: string; caFile(certs: TestCertificates): string }
> {
  const path = await Deno.makeTempDir({ prefix: "kudurru-doh-test-" });
  let n = 0;
  return {
    path,
    caFile(certs) {
      const file = join(path, `ca-${n++}.pem`);
      Deno.writeTextFileSync(file, certs.caCert);
      return file;
    },
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** A DoH listener on 127.0.0.1 (or `hostname`) with the test handler. */
export function startDoh(
  extra: Partial<DohServerOptions> & { hostname?: string } = {},
) {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server = serveDoh({
    hostname: "127.0.0.1",
    port: 0,
    handler,
    counters,
    logger,
    ...extra,
  });
  return {
    handler,
    counters,
    logger,
    server,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

export interface CurlReply {
  /** curl's exit code: 0, or why it failed (60: certificate not trusted). */
  exitCode: number;
  /** 0 when no response came. */
  status: number;
  /** "2", "1.1". */
  version: string;
  /** The final response's headers, names lower-case. */
  headers: Record<string, string>;
  body: Uint8Array;
}

let replies = 0;

/**
 * Runs curl with `args` (the URL among them) and reads back the final
 * response. `-s` always; `--max-time 10` unless `args` sets one.
 */
export async function curl(dir: string, args: string[]): Promise<CurlReply> {
  const n = replies++;
  const bodyFile = join(dir, `body-${n}`);
  const headFile = join(dir, `head-${n}`);
  const out = await new Deno.Command("curl", {
    args: [
      "-s",
      ...(args.includes("--max-time") ? [] : ["--max-time", "10"]),
      "-o",
      bodyFile,
      "-D",
      headFile,
      "-w",
      "%{http_code} %{http_version}",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [code = "0", version = ""] = new TextDecoder().decode(out.stdout)
    .split(" ");
  const body = await Deno.readFile(bodyFile).catch(() => new Uint8Array());
  const head = await Deno.readTextFile(headFile).catch(() => "");
  return {
    exitCode: out.code,
    status: Number(code),
    version,
    headers: lastHeaders(head),
    body,
  };
}

/** The header lines of the last response in curl's `-D` file. */
function lastHeaders(text: string): Record<string, string> {
  const blocks = text.split(/\r?\n\r?\n/).filter((b) => b.trim() !== "");
  const headers: Record<string, string> = {};
  for (const line of (blocks.at(-1) ?? "").split(/\r?\n/).slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1)
        .trim();
    }
  }
  return headers;
}

/** Runs a command to its end; exit code and output. */
export async function run(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Waits until `ready()` holds, checking every 10 ms; throws after `ms`. */
export async function until(ready: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`not ready after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
