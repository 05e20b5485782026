/**
 * `kudurru get zones` with 10,000 zones, over the API (a logged-in context)
 * against the same on the local data directory (`--data-dir`), from one
 * real `kudurru serve` (src/testing/kudurru_server.ts) whose objects.d holds
 * the zones. Each command runs two ways:
 *
 * - as a process (`deno run main.ts get zones`), what a user waits for,
 *   Deno's start and module loading included;
 * - in this process (`runCli`), the command's own cost.
 *
 * The API path reads pages of 500 with `continue`; the local path opens
 * state.db read-only while the server runs. Timing starts once the server
 * has gone idle after loading the zones.
 *
 *   deno run -A --unstable-net bench/api/cli_get_bench.ts [--zones 10000] [--reps 10] [--warmup 2]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { API_VERSION, type KObject } from "../../src/api/v1alpha1/meta.ts";
import { bufferIO } from "../../src/cli/command.ts";
import { runCli } from "../../src/cli/run.ts";
import { freePort } from "../../src/testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { clockTicks } from "../dnsperf/cpu_time.ts";
import { settle } from "../dnsperf/settle.ts";
import {
  ADMIN_PASSWORD,
  cpuModel,
  intOption,
  ms,
  percentile,
  print,
  table,
} from "./harness.ts";

const HELP =
  `Usage: deno run -A --unstable-net bench/api/cli_get_bench.ts [options]

  --zones N    DNSZones the server holds (default 10000)
  --reps N     timed runs of each command (default 10)
  --warmup N   untimed runs first (default 2)
  --api-cpu P  listeners.api.cpuPercent, the API's share of the main
               thread (default: the server's own default)
  --help       this text`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    zones: { type: "string", default: "10000" },
    reps: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    "api-cpu": { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const ZONES = intOption("zones", values.zones, 1, 100_000);
const REPS = intOption("reps", values.reps, 1, 1000);
const WARMUP = intOption("warmup", values.warmup, 0, 100);
const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

function zone(i: number): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: `z${i}` },
    spec: { zoneName: `z${i}.bench.test.`, type: "primary" },
  };
}

// objects.d files hold at most 4 MiB: 2,000 zones a file.
const objectFiles: Record<string, KObject[]> = {};
for (let i = 0; i < ZONES; i += 2000) {
  objectFiles[`zones-${i}.yaml`] = Array.from(
    { length: Math.min(2000, ZONES - i) },
    (_, j) => zone(i + j),
  );
}

print(`Starting kudurru with ${ZONES} zones…`);
await using server = await startKudurru({
  objects: [localReadyZoneObject()],
  objectFiles,
  readyZone: LOCAL_READY_ZONE,
  upstreamPort: freePort(),
  nodeName: "cli-bench",
  env: { KUDURRU_ADMIN_PASSWORD: ADMIN_PASSWORD },
  startTimeoutMs: 300_000,
  ...(values["api-cpu"] !== undefined &&
    { api: { cpuPercent: intOption("api-cpu", values["api-cpu"], 1, 100) } }),
});
const home = await Deno.makeTempDir({ prefix: "kudurru-cli-bench-" });
try {
  const env = { XDG_CONFIG_HOME: join(home, "config") };
  await untilApiUp(server.apiUrl);
  const login = await cli(
    ["login", "--server", server.apiUrl, "--username", "admin"],
    env,
    `${ADMIN_PASSWORD}\n`,
  );
  if (login.code !== 0) throw new Error(`login: ${login.stderr}`);
  const overApi = ["get", "zones"];
  const local = ["get", "zones", "--data-dir", server.dataDir];
  // The bench's zones, the readiness zone, and the first boot's own.
  const expected = await untilListed(overApi, env, ZONES + 1);
  // Then the snapshot of every zone is built and their statuses stamped
  // (about 20 s of CPU for 10,000 zones): measured once that is done.
  const waited = await settle(server.pid, await clockTicks(), 300_000);
  print(`The server went idle ${(waited / 1000).toFixed(0)} s after listing.`);

  const rows: string[][] = [[
    "command",
    "how",
    "p50 ms",
    "p99 ms",
    "max ms",
  ]];
  for (const [what, args] of [["API", overApi], ["local", local]] as const) {
    const inProcess = await timed(() => cli([...args], env, "", expected));
    rows.push([`get zones (${what})`, "runCli", ...figures(inProcess)]);
    const spawned = await timed(() => spawn([...args], env, expected));
    rows.push([`get zones (${what})`, "process", ...figures(spawned)]);
  }
  print(`kudurru get zones, ${expected} zones, ${REPS} runs each`);
  print(`CPU: ${cpuModel()}`);
  print();
  for (const line of table(rows, false)) print(line);
} finally {
  await Deno.remove(home, { recursive: true });
}

function figures(xs: number[]): string[] {
  return [ms(percentile(xs, 50)), ms(percentile(xs, 99)), ms(Math.max(...xs))];
}

async function timed(run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + REPS; i++) {
    const began = performance.now();
    await run();
    if (i >= WARMUP) samples.push(performance.now() - began);
  }
  return samples;
}

async function cli(
  args: string[],
  env: Record<string, string>,
  stdin = "",
  lines?: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = bufferIO(stdin, env);
  const code = await runCli(args, b.io);
  const out = { code, stdout: b.stdout(), stderr: b.stderr() };
  if (lines !== undefined) checkListed(args, out, lines);
  return out;
}

async function spawn(
  args: string[],
  env: Record<string, string>,
  lines: number,
): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    // All permissions, as the compiled binary has.
    args: ["run", "-A", MAIN, ...args],
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  checkListed(args, {
    code: out.code,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
  }, lines);
}

/** The table has a header and a row per zone, or the figures mean nothing. */
function checkListed(
  args: string[],
  out: { code: number; stdout: string; stderr: string },
  zones: number,
): void {
  const rows = out.stdout.trimEnd().split("\n").length - 1;
  if (out.code !== 0 || rows !== zones) {
    throw new Error(
      `kudurru ${
        args.join(" ")
      }: exit ${out.code}, ${rows} rows (want ${zones}): ${
        out.stderr.slice(0, 500)
      }`,
    );
  }
}

async function untilApiUp(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${url}/api/v1/auth/status`).catch(() => undefined);
    await res?.body?.cancel();
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the API at ${url} did not come up`);
}

/**
 * The loader may still be storing the zones when DNS answers: waits until
 * at least `zones` are listed; resolves to how many are.
 */
async function untilListed(
  args: string[],
  env: Record<string, string>,
  zones: number,
): Promise<number> {
  for (let i = 0; i < 120; i++) {
    const out = await cli(args, env);
    const rows = out.stdout.trimEnd().split("\n").length - 1;
    if (rows >= zones) return rows;
    await new Promise((r) => setTimeout(r, 500));
  }
  const last = await cli(args, env);
  throw new Error(
    `the server never listed ${zones} zones: ${
      last.stdout.slice(-300)
    } ${last.stderr}`,
  );
}
