/**
 * DNS over HTTPS load with h2load (nghttp2): HTTP/2 over TLS, GET requests
 * whose `?dns=` carries the query in base64url with ID 0 (RFC 8484 §4.1:
 * ID 0 lets HTTP caches share answers, so DoH clients send it).
 *
 * Why GET from a URI file rather than POST: h2load's `-d` posts one file's
 * bytes on every request, so a POST load asks one name over and over; `-i`
 * takes a file of URIs and each client walks through them in order, so the
 * DoH load asks the same ~1,000 distinct names as the DoT load does.
 */
import { LOAD_CPU } from "../dnsperf/cpu_pinning.ts";
import { queryMessage } from "../../src/testing/dns_client.ts";

/** Unpadded base64url (RFC 4648 §5), as RFC 8484 §6 asks for `dns=`. */
export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** The GET URI asking `name` A (ID 0, RD set, no EDNS, as dnsperf asks). */
export function dohUri(port: number, path: string, name: string): string {
  const query = base64Url(queryMessage(name, "A", { id: 0 }));
  return `https://127.0.0.1:${port}${path}?dns=${query}`;
}

/** h2load's `-i` file: one URI per name, in order. */
export function dohUriFile(
  port: number,
  path: string,
  names: readonly string[],
): string {
  return names.map((n) => dohUri(port, path, n)).join("\n") + "\n";
}

/** What one h2load run reported. */
export interface H2loadResult {
  /** The measured time (`-D`), or how long the fixed count took. */
  seconds: number;
  /** Requests that ended, however they ended. */
  done: number;
  /** Responses with a 2xx status: DNS answers. */
  ok: number;
  /** Requests that failed (errors and timeouts included) or got another status. */
  notOk: number;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6 };

/**
 * Reads the summary h2load prints at the end of a run. In a timed run the
 * requests still in flight at the end are started but neither done nor
 * failed, and count as neither; a status is counted when its headers
 * arrive, so 2xx may exceed done by those.
 */
export function parseH2loadReport(text: string): H2loadResult | null {
  const finished = /finished in ([\d.]+)(s|ms|us),/.exec(text);
  const requests =
    /requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed/
      .exec(text);
  const status = /status codes: (\d+) 2xx, (\d+) 3xx/.exec(text);
  if (finished === null || requests === null || status === null) return null;
  return {
    seconds: Number(finished[1]) * UNIT_SECONDS[finished[2]!]!,
    done: Number(requests[1]),
    ok: Number(status[1]),
    // h2load's "failed" holds errors and 4xx/5xx; 3xx it counts a success.
    notOk: Number(requests[2]) + Number(status[2]),
  };
}

/** How to run h2load. */
export interface H2loadOptions {
  /** The `-i` file (dohUriFile). */
  uriFile: string;
  /** Connections (`-c`). */
  clients: number;
  /** Streams in flight per connection (`-m`). */
  streams: number;
  /** Timed run of this many seconds (`-D`)... */
  seconds?: number;
  /** ...or this many requests over all clients (`-n`). */
  requests?: number;
  /** Killed after this long. */
  killAfterMs: number;
  /** Run h2load on its own CPU (see ../dnsperf/cpu_pinning.ts). */
  pin?: boolean;
}

/** Runs h2load once; throws with its output when it reports nothing. */
export async function runH2load(opts: H2loadOptions): Promise<H2loadResult> {
  const args = ["-i", opts.uriFile, "-c", String(opts.clients)];
  args.push("-m", String(opts.streams), "-t", "1");
  if (opts.seconds !== undefined) args.push("-D", String(opts.seconds));
  if (opts.requests !== undefined) args.push("-n", String(opts.requests));
  // On the load generator's CPU, as dnsperf is pinned (cpu_pinning.ts).
  const run = opts.pin === true
    ? {
      command: "taskset",
      args: ["--cpu-list", String(LOAD_CPU), "h2load", ...args],
    }
    : { command: "h2load", args };
  const out = await new Deno.Command(run.command, {
    args: run.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(opts.killAfterMs),
  }).output();
  const decoder = new TextDecoder();
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  const result = parseH2loadReport(text);
  if (result === null) {
    throw new Error(
      `Cannot read the h2load report (exit ${out.code}${
        out.signal ? `, ${out.signal}` : ""
      }):\n${text.slice(-2000)}`,
    );
  }
  return result;
}
