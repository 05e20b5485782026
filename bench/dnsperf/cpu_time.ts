/**
 * CPU time of a process and all its live descendants, from /proc. NSD
 * forks its serving processes, so the parent's own counters are not enough.
 */

/** Clock ticks per second (`getconf CLK_TCK`), read once. */
export async function clockTicks(): Promise<number> {
  const out = await new Deno.Command("getconf", {
    args: ["CLK_TCK"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const ticks = Number(new TextDecoder().decode(out.stdout).trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
}

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

/** Fields after the command name, which may itself hold spaces and parens. */
function parseStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf(" ")));
  const fields = text.slice(close + 2).split(" ");
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { pid, ppid, ticks };
}

function allStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = parseStat(Deno.readTextFileSync(`/proc/${entry.name}/stat`));
      if (stat !== null) stats.push(stat);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return stats;
}

/** `pid` and every live descendant: the statistics of each. */
function treeStats(pid: number): ProcStat[] {
  const stats = allStats();
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) {
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  }
  const tree: ProcStat[] = [];
  const root = stats.find((s) => s.pid === pid);
  const queue = root ? [root] : [];
  while (queue.length > 0) {
    const s = queue.pop()!;
    tree.push(s);
    queue.push(...(children.get(s.pid) ?? []));
  }
  return tree;
}

/** `pid` and the process ids of every live descendant. */
export function treePids(pid: number): number[] {
  return treeStats(pid).map((s) => s.pid);
}

/** Seconds of CPU used so far by `pid` and every live descendant. */
export function treeCpuSeconds(pid: number, ticksPerSecond: number): number {
  let ticks = 0;
  for (const s of treeStats(pid)) ticks += s.ticks;
  return ticks / ticksPerSecond;
}

/** What a thread of a Deno server does, from its name. */
export type ThreadKind = "main" | "workers" | "v8 helpers" | "other";

function threadKind(name: string): ThreadKind {
  if (name === "deno") return "main";
  if (name.startsWith("worker-")) return "workers";
  if (name.startsWith("V8 ")) return "v8 helpers";
  return "other";
}

/** One thread of a process: what it does and the ticks it used so far. */
export type ThreadTicks = Map<string, { kind: ThreadKind; ticks: number }>;

/** The threads of process `pid` (not its children), by thread id. */
export function threadTicks(pid: number): ThreadTicks {
  const threads: ThreadTicks = new Map();
  for (const entry of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${entry.name}`;
      const name = Deno.readTextFileSync(`${dir}/comm`).trim();
      const stat = parseStat(Deno.readTextFileSync(`${dir}/stat`));
      if (stat !== null) {
        threads.set(entry.name, { kind: threadKind(name), ticks: stat.ticks });
      }
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/**
 * Ticks used between two readings, by kind of thread; threads that started
 * in between count from 0, threads that ended are left out.
 */
export function ticksBetween(
  before: ThreadTicks,
  after: ThreadTicks,
): Record<ThreadKind, number> {
  const used: Record<ThreadKind, number> = {
    main: 0,
    workers: 0,
    "v8 helpers": 0,
    other: 0,
  };
  for (const [tid, { kind, ticks }] of after) {
    used[kind] += ticks - (before.get(tid)?.ticks ?? 0);
  }
  return used;
}
