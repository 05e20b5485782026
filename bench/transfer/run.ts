/**
 * Zone transfers from kudurru, Knot and NSD in one run, on the same
 * zone of `--records` records (transfer_zone.ts):
 *
 * - AXFR (RFC 5936), pulled twice from each server just started and idle:
 *   wall seconds from the connect to the closing SOA, messages, octets,
 *   records (must be the zone's count + 1, the SOA coming twice, on every
 *   server: anything else ends the run with an error), the server's CPU
 *   seconds, and its RSS before and at its peak while sending.
 * - IXFR (RFC 1995) after one record changed: each server goes from serial
 *   S to a newer one (kudurru: its objects.d file rewritten; Knot: the zone
 *   file loaded as a difference, `knotc zone-reload`; NSD: the zone file
 *   reloaded by SIGHUP with `create-ixfr`), then an IXFR from S: its form
 *   (incremental, AXFR or the SOA alone), messages, octets and records,
 *   and the layout of every message, to say why two servers' octets differ.
 *
 *   deno run -A bench/transfer/run.ts [--rounds 3] [--servers kudurru,knot,nsd]
 *     [--records 100000]
 *
 * `--rounds N` measures the servers N times, the order reversed every other
 * round, and ends with medians and the median of each round's ratio of
 * kudurru's AXFR time to Knot's (target: at most 1.5). Every server is
 * stopped before the next starts, and at the end, even on failure; a server
 * that cannot start is skipped with the reason. Every wait is bounded.
 */
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import YAML from "yaml";
import { serialGreater } from "../../src/dns/serial_number.ts";
import { query } from "../../src/testing/dns_client.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import {
  type RunningServer,
  startKnot,
  startNsd,
} from "../../tests/interop/peers.ts";
import { clockTicks, treeCpuSeconds } from "../dnsperf/cpu_time.ts";
import { roundOrder } from "../dnsperf/rounds.ts";
import { settle } from "../dnsperf/settle.ts";
import { type MemoryPeak, sampleMemory } from "./memory.ts";
import {
  TRANSFER_ZONE,
  transferObjectFiles,
  transferRecordSets,
  transferZone,
  transferZoneFile,
} from "./transfer_zone.ts";
import { framed, syntheticAxfr } from "./synthetic.ts";
import {
  countTypes,
  describeMessages,
  FrameSplitter,
  pullTransfer,
  TransferReader,
  type TransferResult,
} from "./xfr_client.ts";
import { median, medianLine, type Sample } from "./summary.ts";

type ServerName = "kudurru" | "knot" | "nsd";
const SERVERS: readonly ServerName[] = ["kudurru", "knot", "nsd"];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    servers: { type: "string", default: SERVERS.join(",") },
    records: { type: "string", default: "100000" },
  },
});
const rounds = Math.min(
  Math.max(Math.trunc(Number(values.rounds)) || 1, 1),
  10,
);
const records = Math.min(
  Math.max(Math.trunc(Number(values.records)) || 100_000, 10),
  2_000_000,
);
/** The zone-file serial Knot and NSD start from (kudurru stamps its own). */
const PEER_SERIAL = 2026120201;
/** AXFRs pulled from each server per start: the first, then a repeat. */
const PULLS = 2;
/** Longest wait for a transfer, a new serial or a server's start. */
const TRANSFER_TIMEOUT_MS = 120_000;
const SERIAL_TIMEOUT_MS = 120_000;

function print(...lines: string[]): void {
  for (const line of lines) {
    Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
  }
}

/** One AXFR pull and what the server did meanwhile. */
interface Pull {
  result: TransferResult;
  memory: MemoryPeak;
  cpuSeconds: number;
}

/** The IXFR after one change. */
interface Ixfr {
  fromSerial: number;
  toSerial: number;
  result: TransferResult;
  /** Seconds from the change (file written, reload asked) to the new serial over UDP. */
  changeSeconds: number;
  /** The same over TCP, where transfers are answered. */
  changeSecondsTcp: number;
  /** IXFR queries sent until the answer was incremental (at most 3). */
  tries: number;
  /** What each try before the last was answered with: form and records. */
  earlier: string[];
}

interface Row {
  server: ServerName;
  pulls: Pull[];
  ixfr?: Ixfr;
  /** Why there is no IXFR figure. */
  ixfrNote?: string;
}

async function soaSerial(
  port: number,
  tcp = false,
): Promise<number | undefined> {
  try {
    const reply = await query(port, TRANSFER_ZONE, "SOA", {
      timeoutMs: 1000,
      tcp,
    });
    const soa = reply.answers.find((a) => a.type === "SOA");
    return soa === undefined ? undefined : Number(soa.data.serial);
  } catch {
    return undefined;
  }
}

/**
 * Polls the SOA (over UDP, or TCP) until `accept` takes its serial;
 * bounded by SERIAL_TIMEOUT_MS.
 */
async function waitForSerial(
  port: number,
  what: string,
  accept: (serial: number) => boolean,
  tcp = false,
): Promise<number> {
  const deadline = Date.now() + SERIAL_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const serial = await soaSerial(port, tcp);
    if (serial !== undefined && accept(serial)) return serial;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what} on port ${port}`);
}

async function run(command: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  if (!out.success) {
    const text = new TextDecoder();
    throw new Error(
      `${command} ${args.join(" ")} failed: ${text.decode(out.stdout)}${
        text.decode(out.stderr)
      }`,
    );
  }
}

/** A running server and how to give it the zone with one record changed. */
interface Started {
  server: RunningServer;
  /** Writes the changed zone and asks the server to load it. */
  change(fromSerial: number): Promise<void>;
}

async function start(name: ServerName): Promise<Started> {
  if (name === "kudurru") {
    const server = await startKudurru({
      objects: [transferZone()],
      objectFiles: transferObjectFiles(records),
      readyZone: TRANSFER_ZONE,
      upstreamPort: freePort(),
      startTimeoutMs: 180_000,
    });
    return {
      server,
      async change() {
        // Only the file holding h1, renamed into place so that the
        // objects.d watcher never reads half of it.
        const [name, sets] = Object.entries(
          transferObjectFiles(records, true),
        )[0]!;
        const dir = dirname(server.dataDir);
        const next = join(dir, `${name}.next`);
        await Deno.writeTextFile(
          next,
          sets.map((o) => YAML.stringify(o)).join("---\n"),
        );
        await Deno.rename(next, join(dir, "objects.d", name));
      },
    };
  }
  const zones = [{
    name: TRANSFER_ZONE,
    text: transferZoneFile(records, PEER_SERIAL),
  }];
  const server = name === "knot"
    ? await startKnot(zones, {
      transferFromLoopback: true,
      ixfrFromDifferences: true,
    })
    : await startNsd(zones, {
      transferFromLoopback: true,
      ixfrFromZoneFile: true,
    });
  // Both run with `-c <config>` from their temp dir, the zone file beside it.
  const conf = configPath(server.pid);
  const zoneFile = join(dirname(conf), `${TRANSFER_ZONE.slice(0, -1)}.zone`);
  return {
    server,
    async change(fromSerial) {
      const next = `${zoneFile}.next`;
      await Deno.writeTextFile(
        next,
        transferZoneFile(records, fromSerial + 1, true),
      );
      await Deno.rename(next, zoneFile);
      if (name === "knot") {
        await run("knotc", ["-c", conf, "zone-reload", TRANSFER_ZONE]);
      } else {
        // NSD reads changed zone files on SIGHUP (nsd(8)); its control
        // channel is off in peers.ts.
        Deno.kill(server.pid, "SIGHUP");
      }
    },
  };
}

/** The `-c` argument of a server's command line. */
function configPath(pid: number): string {
  const args = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
  const at = args.indexOf("-c");
  if (at < 0 || args[at + 1] === undefined) {
    throw new Error(`no -c in the command line of ${pid}: ${args.join(" ")}`);
  }
  return args[at + 1]!;
}

async function pullAxfr(server: RunningServer, ticks: number): Promise<Pull> {
  const cpuBefore = treeCpuSeconds(server.pid, ticks);
  const sampler = sampleMemory(server.pid);
  const pulled = await pullTransfer(server.port, TRANSFER_ZONE, {
    qtype: "AXFR",
    timeoutMs: TRANSFER_TIMEOUT_MS,
  }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  // Stopped on failure too, so no timer outlives the pull.
  const memory = sampler.stop();
  if ("error" in pulled) throw pulled.error;
  const { result } = pulled;
  const cpuSeconds = treeCpuSeconds(server.pid, ticks) - cpuBefore;
  if (result.records !== records + 1 || result.form !== "axfr") {
    throw new Error(
      `AXFR from port ${server.port} carried ${result.records} records in ${result.form} form; the zone holds ${records}, so ${
        records + 1
      } were due (the SOA twice)`,
    );
  }
  return { result, memory, cpuSeconds };
}

async function ixfrAfterChange(started: Started): Promise<Ixfr> {
  const { server } = started;
  const fromSerial = await waitForSerial(
    server.port,
    "the zone's serial",
    () => true,
  );
  const changedAt = performance.now();
  await started.change(fromSerial);
  const newer = (s: number) => serialGreater(s, fromSerial);
  const what = `a serial newer than ${fromSerial}`;
  // kudurru's listeners each take the new snapshot on their own (one
  // Worker per address and transport): TCP, where a secondary asks for
  // the IXFR, may lag UDP, where it asks for the SOA after a NOTIFY.
  const tcpSeen = waitForSerial(server.port, what, newer, true).then(() =>
    (performance.now() - changedAt) / 1000
  );
  const toSerial = await waitForSerial(server.port, what, newer);
  const changeSeconds = (performance.now() - changedAt) / 1000;
  let result: TransferResult | undefined;
  let tries = 0;
  const earlier: string[] = [];
  // A server whose journal lags its new serial answers in AXFR form
  // (RFC 1995 §4); asked again a second later, up to three times, so the
  // run says whether that was a race or the rule.
  while (tries < 3) {
    tries++;
    result = await pullTransfer(server.port, TRANSFER_ZONE, {
      qtype: "IXFR",
      serial: fromSerial,
      timeoutMs: TRANSFER_TIMEOUT_MS,
      keep: true,
    });
    if (result.form === "ixfr") break;
    earlier.push(
      `${result.form} of ${result.records} records, serial ${result.serial}`,
    );
    await new Promise((r) => setTimeout(r, 1000));
  }
  return {
    fromSerial,
    toSerial,
    result: result!,
    changeSeconds,
    changeSecondsTcp: await tcpSeen,
    tries,
    earlier,
  };
}

/** A server that did not start: skipped, where a failed measurement ends the run. */
class StartError extends Error {}

async function measure(name: ServerName, ticks: number): Promise<Row> {
  const started = await start(name).catch((error: Error) => {
    throw new StartError(error.message, { cause: error });
  });
  try {
    const { server } = started;
    if (name === "kudurru") {
      // The leader stamps the first serial, then the snapshot is rebuilt.
      await waitForSerial(server.port, "the stamped serial", (s) => s > 1);
    }
    await settle(server.pid, ticks);
    const pulls: Pull[] = [];
    for (let i = 0; i < PULLS; i++) pulls.push(await pullAxfr(server, ticks));
    const row: Row = { server: name, pulls };
    row.ixfr = await ixfrAfterChange(started);
    if (row.ixfr.result.form !== "ixfr") {
      row.ixfrNote = `answered IXFR in ${row.ixfr.result.form} form`;
    }
    return row;
  } finally {
    await started.server.stop();
  }
}

const mib = (kib: number) => (kib / 1024).toFixed(1);
const thousands = (n: number) => n.toLocaleString("en-US");

function axfrTable(rows: Row[]): string[] {
  const knot = rows.find((r) => r.server === "knot");
  const lines = [
    "server    pull   seconds  messages      octets   records  server CPU s  RSS before MiB  peak MiB  kudurru/knot time",
  ];
  for (const r of rows) {
    r.pulls.forEach((p, i) => {
      const k = knot?.pulls[i];
      lines.push([
        r.server.padEnd(9),
        String(i + 1).padEnd(4),
        p.result.seconds.toFixed(3).padStart(9),
        String(p.result.messages).padStart(9),
        thousands(p.result.wireOctets).padStart(11),
        String(p.result.records).padStart(9),
        p.cpuSeconds.toFixed(2).padStart(13),
        mib(p.memory.beforeKiB).padStart(15),
        mib(p.memory.peakKiB).padStart(9),
        (r.server === "kudurru" && k
          ? (p.result.seconds / k.result.seconds).toFixed(2)
          : "-").padStart(18),
      ].join(" "));
    });
  }
  return lines;
}

function ixfrTable(rows: Row[]): string[] {
  const knot = rows.find((r) => r.server === "knot")?.ixfr;
  const lines = [
    "server    form   messages   octets  records  serials                change→serial s UDP / TCP  tries  octets vs knot",
  ];
  const notes: string[] = [];
  for (const r of rows) {
    const x = r.ixfr;
    if (x === undefined) {
      lines.push(`${r.server.padEnd(9)} ${r.ixfrNote ?? "-"}`);
      continue;
    }
    if (x.earlier.length > 0) {
      notes.push(
        `${r.server}: asked as soon as its SOA showed ${x.toSerial}, it answered ${
          x.earlier.join("; then ")
        }`,
      );
    }
    lines.push([
      r.server.padEnd(9),
      (x.result.form ?? "?").padEnd(5),
      String(x.result.messages).padStart(9),
      thousands(x.result.wireOctets).padStart(8),
      String(x.result.records).padStart(8),
      ` ${x.fromSerial} → ${x.toSerial}`.padEnd(23),
      `${x.changeSeconds.toFixed(2)} / ${x.changeSecondsTcp.toFixed(2)}`
        .padStart(25),
      String(x.tries).padStart(6),
      (knot && r.server !== "knot"
        ? `${x.result.wireOctets - knot.result.wireOctets >= 0 ? "+" : ""}${
          x.result.wireOctets - knot.result.wireOctets
        }`
        : "-").padStart(15),
    ].join(" "));
  }
  return [...lines, ...notes];
}

/** The layout of each server's IXFR answer, when it is small enough to read. */
function ixfrLayouts(rows: Row[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const kept = r.ixfr?.result.kept;
    if (kept === undefined) continue;
    if (r.ixfr!.result.records > 50) {
      lines.push(
        `${r.server}: ${r.ixfr!.result.records} records (${
          countTypes(kept)
        }) in ${kept.length} messages, too many to list`,
      );
      continue;
    }
    lines.push(`${r.server}:`, ...describeMessages(kept));
  }
  return lines;
}

function summary(all: Row[][], servers: ServerName[]): string[] {
  const lines = [
    `medians over ${all.length} rounds (each round's figures in brackets):`,
  ];
  for (const server of servers) {
    const mine = all.flatMap((round) =>
      round.filter((r) => r.server === server)
    );
    if (mine.length === 0) continue;
    for (let i = 0; i < PULLS; i++) {
      const pulls = mine.map((r) => r.pulls[i]!);
      const take = (f: (p: Pull) => number, digits: number): Sample => ({
        values: pulls.map(f),
        digits,
      });
      lines.push(
        `${server} AXFR pull ${i + 1}: ` + [
          `${medianLine(take((p) => p.result.seconds, 3))} s`,
          `${medianLine(take((p) => p.cpuSeconds, 2))} server CPU s`,
          `peak RSS ${
            medianLine(take((p) => p.memory.peakKiB / 1024, 1))
          } MiB (before ${
            medianLine(take((p) => p.memory.beforeKiB / 1024, 1))
          })`,
          `${thousands(median(pulls.map((p) => p.result.messages)))} messages`,
          `${thousands(median(pulls.map((p) => p.result.wireOctets)))} octets`,
          `${thousands(median(pulls.map((p) => p.result.records)))} records`,
        ].join(", "),
      );
      if (server === "kudurru") {
        const ratios = all.flatMap((round) => {
          const k = round.find((r) => r.server === "kudurru")?.pulls[i];
          const n = round.find((r) => r.server === "knot")?.pulls[i];
          return k && n ? [k.result.seconds / n.result.seconds] : [];
        });
        if (ratios.length > 0) {
          const m = median(ratios);
          lines.push(
            `  kudurru/knot AXFR time, pull ${i + 1}: ${
              medianLine({ values: ratios, digits: 2 })
            } (target ≤ 1.5: ${m <= 1.5 ? "met" : "missed"})`,
          );
        }
      }
    }
    const ixfrs = mine.flatMap((r) => r.ixfr ? [r.ixfr] : []);
    if (ixfrs.length > 0) {
      const forms = [...new Set(ixfrs.map((x) => x.result.form))].join("/");
      lines.push(
        `${server} IXFR: ${forms}, ${
          medianLine({
            values: ixfrs.map((x) => x.result.wireOctets),
            digits: 0,
          })
        } octets in ${
          medianLine({ values: ixfrs.map((x) => x.result.messages), digits: 0 })
        } messages, ${
          medianLine({ values: ixfrs.map((x) => x.result.records), digits: 0 })
        } records; change to new serial ${
          medianLine({ values: ixfrs.map((x) => x.changeSeconds), digits: 2 })
        } s over UDP, ${
          medianLine({
            values: ixfrs.map((x) => x.changeSecondsTcp),
            digits: 2,
          })
        } s over TCP; IXFR tries ${
          medianLine({ values: ixfrs.map((x) => x.tries), digits: 0 })
        }`,
      );
    }
  }
  return lines;
}

/**
 * Runs the client's frame splitter and reader over a synthetic transfer
 * first, so that no server's first pull pays for the client's JIT.
 */
function warmUpClient(): void {
  const stream = framed(syntheticAxfr(TRANSFER_ZONE, 1, 20_000));
  for (let i = 0; i < 5; i++) {
    const splitter = new FrameSplitter();
    const reader = new TransferReader("AXFR");
    for (let at = 0; at < stream.length; at += 65536) {
      for (const m of splitter.push(stream.subarray(at, at + 65536))) {
        reader.add(m);
      }
    }
    if (!reader.done) throw new Error("the warm-up transfer did not end");
  }
}

/** The SOA polls need Deno.listenDatagram: re-run under --unstable-net. */
async function rerunWithUnstableNet(): Promise<never> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

async function main(): Promise<void> {
  if (typeof Deno.listenDatagram !== "function") await rerunWithUnstableNet();
  const servers = values.servers.split(",").map((s) => s.trim()).filter((s) =>
    s !== ""
  ) as ServerName[];
  for (const s of servers) {
    if (!SERVERS.includes(s)) throw new Error(`unknown server "${s}"`);
  }
  const ticks = await clockTicks();
  warmUpClient();
  const all: Row[][] = [];
  print(
    `zone ${TRANSFER_ZONE}: ${thousands(records)} records (${
      transferRecordSets(records).length
    } DNSRecordSets); each AXFR must carry ${thousands(records + 1)}`,
  );
  for (let round = 0; round < rounds; round++) {
    const rows: Row[] = [];
    for (const server of roundOrder(servers, round)) {
      let row: Row;
      try {
        row = await measure(server, ticks);
      } catch (error) {
        // A wrong count or a broken transfer ends the run; a server that
        // does not start is skipped.
        if (!(error instanceof StartError)) throw error;
        print(`${server} skipped: ${error.message}`);
        continue;
      }
      rows.push(row);
    }
    const sorted = servers.flatMap((s) => rows.filter((r) => r.server === s));
    print("", `round ${round + 1} of ${rounds}: AXFR`);
    for (const line of axfrTable(sorted)) print(line);
    print("", `round ${round + 1}: IXFR after one changed record`);
    for (const line of ixfrTable(sorted)) print(line);
    if (round === 0) {
      print("", "IXFR answers, message by message:");
      for (const line of ixfrLayouts(sorted)) print(line);
    }
    all.push(sorted);
  }
  print("");
  for (const line of summary(all, servers)) print(line);
}

await main();
