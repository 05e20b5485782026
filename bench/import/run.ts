/**
 * The import-at-scale benchmark: `kudurru import bind` of a zone file of
 * N records and `kudurru import pihole` of a gravity database whose
 * gravity table holds N downloaded domains, each run as the operator runs
 * it (a fresh `deno run -A main.ts import …` process writing its List with
 * `-o`), timed from spawn to exit, with the process's peak RSS. Targets:
 * at most 30 s and 500 MB each (README.md).
 *
 *   deno run -A bench/import/run.ts [--records 1000000] [--domains 2000000]
 *     [--only bind,pihole] [--keep]
 *
 * Peak RSS is GNU time's "Maximum resident set size" when /usr/bin/time is
 * installed, else VmHWM read from /proc/PID/status while the child runs
 * (polled every 50 ms until it exits; VmHWM is the kernel's own high-water
 * mark, so the poll only has to catch the process before it ends).
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { writeBindInputs, writePiholeInputs } from "./inputs.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    records: { type: "string", default: "1000000" },
    domains: { type: "string", default: "2000000" },
    only: { type: "string", default: "bind,pihole" },
    keep: { type: "boolean", default: false },
  },
});

const TIME_LIMIT_S = 30;
const RSS_LIMIT_MB = 500;
/** A child still running after this is killed: the figure is then a failure. */
const CHILD_TIMEOUT_MS = 5 * 60_000;

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
// Pi-hole's install schema, read in place from the project's shared data.
const SCHEMA = new URL(
  "../../../shared/data/imports/pihole/gravity.db.sql",
  import.meta.url,
);

const encoder = new TextEncoder();
function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}
function note(text: string): void {
  Deno.stderr.writeSync(encoder.encode(text + "\n"));
}

interface Figure {
  what: string;
  seconds: number;
  peakMB: number;
  code: number;
  outputMB: number;
  reportFirstLine: string;
}

async function hasGnuTime(): Promise<boolean> {
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-v", "true"],
      stdout: "null",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stderr).includes(
      "Maximum resident set size",
    );
  } catch {
    return false;
  }
}

/** VmHWM of a live process in kB, or undefined once it is gone. */
function vmHwmKb(pid: number): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `kudurru import TOOL PATH -o OUT` and measures it. */
async function runImport(
  dir: string,
  tool: string,
  path: string,
  gnuTime: boolean,
): Promise<Figure> {
  const out = join(dir, `${tool}.yaml`);
  const report = join(dir, `${tool}.report`);
  const timeFile = join(dir, `${tool}.time`);
  const deno = [Deno.execPath(), "run", "-A", MAIN, "import", tool, path];
  const args = [...deno, "-o", out];
  const command = gnuTime
    ? new Deno.Command("/usr/bin/time", {
      args: ["-v", "-o", timeFile, ...args],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    })
    : new Deno.Command(args[0]!, {
      args: args.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    });
  note(`running kudurru import ${tool} ${path}`);
  const start = performance.now();
  const child = command.spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
  let polledKb = 0;
  const poll = gnuTime ? undefined : setInterval(() => {
    polledKb = Math.max(polledKb, vmHwmKb(child.pid) ?? 0);
  }, 50);
  const { code, stderr } = await child.output();
  const seconds = (performance.now() - start) / 1000;
  clearTimeout(timer);
  if (poll !== undefined) clearInterval(poll);
  await Deno.writeFile(report, stderr);
  let peakKb = polledKb;
  if (gnuTime) {
    const text = await Deno.readTextFile(timeFile).catch(() => "");
    peakKb = Number(
      /Maximum resident set size \(kbytes\): (\d+)/.exec(text)
        ?.[1] ?? 0,
    );
  }
  const outputBytes = (await Deno.stat(out).catch(() => undefined))?.size ??
    0;
  const reportText = new TextDecoder().decode(stderr);
  return {
    what: `import ${tool}`,
    seconds,
    peakMB: peakKb / 1024,
    code,
    outputMB: outputBytes / 1e6,
    reportFirstLine:
      reportText.split("\n").find((l) => /^# \d+ objects/.test(l)) ?? "",
  };
}

const records = Number(values.records);
const domains = Number(values.domains);
const only = new Set(values.only.split(","));
const gnuTime = await hasGnuTime();
const dir = await Deno.makeTempDir({ prefix: "kudurru-import-bench-" });
note(`inputs in ${dir}; peak RSS from ${gnuTime ? "GNU time -v" : "VmHWM"}`);
const figures: Figure[] = [];
try {
  if (only.has("bind")) {
    const t = performance.now();
    const conf = await writeBindInputs(dir, records);
    const size = (await Deno.stat(join(dir, "db.bench.example"))).size;
    note(
      `zone file: ${records} records, ${
        (size / 1e6).toFixed(1)
      } MB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    figures.push(await runImport(dir, "bind", conf, gnuTime));
  }
  if (only.has("pihole")) {
    const t = performance.now();
    const pihole = join(dir, "pihole");
    await Deno.mkdir(pihole);
    writePiholeInputs(pihole, domains, await Deno.readTextFile(SCHEMA));
    const size = (await Deno.stat(join(pihole, "gravity.db"))).size;
    note(
      `gravity.db: ${domains} gravity rows, ${
        (size / 1e6).toFixed(1)
      } MB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    figures.push(await runImport(dir, "pihole", pihole, gnuTime));
  }
} finally {
  if (!values.keep) await Deno.remove(dir, { recursive: true });
}

print(
  "| import | input | wall s | peak RSS MB | exit | List MB | met (≤ 30 s, ≤ 500 MB) |",
);
print("|---|---|---|---|---|---|---|");
for (const f of figures) {
  const input = f.what === "import bind"
    ? `${records} records`
    : `${domains} gravity rows`;
  // An import that skipped the zone is fast and small, and no success.
  const objects = Number(/^# (\d+) objects/.exec(f.reportFirstLine)?.[1] ?? 0);
  const met = f.code === 0 && objects > 0 && f.seconds <= TIME_LIMIT_S &&
    f.peakMB <= RSS_LIMIT_MB;
  print(
    `| ${f.what} | ${input} | ${f.seconds.toFixed(1)} | ${
      f.peakMB.toFixed(0)
    } | ${f.code} | ${f.outputMB.toFixed(1)} | ${met ? "yes" : "no"} |`,
  );
  print(`|  | report: ${f.reportFirstLine} | | | | | |`);
}
