/**
 * `kudurru doctor`'s look at the data directory: there, a directory, this
 * user may write it, others may not, and the disk under it has room. It
 * writes one probe file and removes it again; nothing else is changed.
 */
import { join } from "node:path";
import { statfs } from "node:fs/promises";
import { messageOf } from "../server/disk_errors.ts";
import { fail, type Finding, ok, warn } from "./doctor_report.ts";

const CHECK = "data directory";
const GIB = 1024 ** 3;

/** Below either, the disk is short of room: a warning. */
export const LOW_SPACE = { bytes: GIB, share: 0.05 } as const;

/** The directory itself: kind, mode and whether this user may write it. */
export async function checkDataDir(dir: string): Promise<Finding[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return [
        warn(
          CHECK,
          `${dir} does not exist yet: kudurru serve creates it at its first start (or check --data-dir and node.dataDir)`,
        ),
      ];
    }
    return [fail(CHECK, `Cannot look at ${dir}: ${messageOf(err)}`)];
  }
  if (!info.isDirectory) {
    return [
      fail(
        CHECK,
        `${dir} is not a directory: move it away or point node.dataDir elsewhere`,
      ),
    ];
  }
  const out: Finding[] = [];
  const unwritable = await writeProblem(dir);
  out.push(
    unwritable === undefined
      ? ok(CHECK, `${dir} is a directory this user may write`)
      : fail(
        CHECK,
        `${dir} is not writable by this user (${unwritable}): run as the server's user, or chown the directory to it`,
      ),
  );
  out.push(modeFinding(dir, info.mode));
  return out;
}

/**
 * World-writable fails (anyone could swap the databases or the keys);
 * world-readable warns (the query log says who asked for what).
 */
export function modeFinding(dir: string, mode: number | null): Finding {
  if (mode === null) return ok(CHECK, `${dir}: no permission bits here`);
  const octal = (mode & 0o777).toString(8).padStart(3, "0");
  if (mode & 0o002) {
    return fail(
      CHECK,
      `${dir} is world-writable (mode ${octal}): chmod 750 ${dir}`,
    );
  }
  if (mode & 0o004) {
    return warn(
      CHECK,
      `${dir} is readable by every user (mode ${octal}) and the query log says who asked for what: chmod o-rwx ${dir}`,
    );
  }
  return ok(CHECK, `${dir} has mode ${octal}`);
}

/** Why a file cannot be made in `dir`, or undefined when one can. */
async function writeProblem(dir: string): Promise<string | undefined> {
  const probe = join(dir, `.doctor-${crypto.randomUUID()}`);
  try {
    await Deno.writeTextFile(probe, "x", { createNew: true, mode: 0o600 });
    return undefined;
  } catch (err) {
    return messageOf(err);
  } finally {
    await Deno.remove(probe).catch(() => {});
  }
}

/** Room on the disk that holds `dir` (or its nearest existing parent). */
export async function checkDiskSpace(dir: string): Promise<Finding> {
  const check = "disk space";
  let fs;
  try {
    fs = await statfs(dir);
  } catch (err) {
    return warn(
      check,
      `Cannot tell the free space of ${dir}: ${messageOf(err)}`,
    );
  }
  return spaceFinding(dir, fs.bavail * fs.bsize, fs.blocks * fs.bsize);
}

/** The verdict on `free` of `total` bytes. */
export function spaceFinding(
  dir: string,
  free: number,
  total: number,
): Finding {
  const check = "disk space";
  const share = total > 0 ? free / total : 0;
  const said = `${formatBytes(free)} free of ${formatBytes(total)} (${
    (share * 100).toFixed(1)
  } %) under ${dir}`;
  if (free < LOW_SPACE.bytes || share < LOW_SPACE.share) {
    return warn(
      check,
      `${said}: free some space, or lower querylog.retention.maxDBBytes (SQLite needs room to write and to vacuum)`,
    );
  }
  return ok(check, said);
}

function formatBytes(n: number): string {
  if (n >= GIB) return `${(n / GIB).toFixed(1)} GiB`;
  return `${(n / 1024 ** 2).toFixed(0)} MiB`;
}
