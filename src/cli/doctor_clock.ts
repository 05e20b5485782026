/**
 * `kudurru doctor`'s look at the clock, with what this machine holds only:
 * nothing is asked off the machine (no NTP, no HTTP Date header), so a
 * clock that is wrong but later than everything here passes. It is behind
 * when it reads earlier than this kudurru's executable was written, or
 * than the data directory's files were last written (it went back), or
 * than a served certificate's notBefore.
 */
import { join } from "node:path";
import { type Finding, ok, warn } from "./doctor_report.ts";
import type { ReadCertificate } from "./doctor_certificates.ts";

const CHECK = "clock";

/** Slack for file systems whose times run a little ahead (network mounts). */
const SLACK_MS = 5 * 60_000;

/** Times the clock should not read earlier than, each with what it is. */
export interface ClockMarks {
  /** When this program's executable was written here (installed, unpacked). */
  program?: { what: string; time: Date } | undefined;
  /** The data directory's files, by path, and when they were last written. */
  dataFiles: { what: string; time: Date }[];
  certificates: readonly ReadCertificate[];
}

/** The findings of the clock at `now`. */
export function clockFindings(now: Date, marks: ClockMarks): Finding[] {
  const out: Finding[] = [];
  const set =
    "set the clock (timedatectl set-ntp true, or date -s) and check that NTP runs";
  const ahead = (t: Date) => t.getTime() - now.getTime() > SLACK_MS;
  if (marks.program && ahead(marks.program.time)) {
    out.push(
      warn(
        CHECK,
        `the clock reads ${now.toISOString()}, before this kudurru was made (${marks.program.what}, ${marks.program.time.toISOString()}): ${set}`,
      ),
    );
  }
  const future = marks.dataFiles.filter((f) => ahead(f.time));
  if (future.length > 0) {
    const newest = future.reduce((a, b) => a.time > b.time ? a : b);
    out.push(
      warn(
        CHECK,
        `the clock reads ${now.toISOString()}, before ${newest.what} was last written (${newest.time.toISOString()}): it went back; ${set}`,
      ),
    );
  }
  for (const c of marks.certificates) {
    if (c.notBefore !== undefined && c.notBefore.getTime() > now.getTime()) {
      out.push(
        warn(
          CHECK,
          `${c.source.certFile} is not valid before ${c.notBefore.toISOString()}, and clients with this clock refuse it: ${set}, or make the certificate again`,
        ),
      );
    }
  }
  if (out.length === 0) {
    out.push(
      ok(
        CHECK,
        `${now.toISOString()} is later than this kudurru's executable and the data directory's files (only local evidence is checked)`,
      ),
    );
  }
  return out;
}

/**
 * When this program was written to this machine: the executable's own
 * file (the compiled kudurru, or the Deno that runs it), which a clock
 * that was never set (a board without a battery-backed clock boots in
 * 1970) reads earlier than.
 */
export async function programMark(): Promise<ClockMarks["program"]> {
  try {
    const path = Deno.execPath();
    const { mtime } = await Deno.stat(path);
    return mtime ? { what: path, time: mtime } : undefined;
  } catch {
    return undefined;
  }
}

/** When the data directory's databases and lock were last written. */
export async function dataFileMarks(
  dataDir: string,
): Promise<ClockMarks["dataFiles"]> {
  const out: ClockMarks["dataFiles"] = [];
  for (
    const name of ["state.db", "state.db-wal", "querylog.db", "kudurru.lock"]
  ) {
    const path = join(dataDir, name);
    try {
      const { mtime } = await Deno.stat(path);
      if (mtime) out.push({ what: path, time: mtime });
    } catch {
      // not there: nothing to compare
    }
  }
  return out;
}
