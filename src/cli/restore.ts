/**
 * `kudurru restore FILE`: apply an export, keeping each object's manager;
 * or, for a backup archive (`kudurru backup`, told by its first bytes),
 * put its files back into the data directory (backup_restore.ts). With a
 * context current (kudurru login) an export goes to the server's
 * `POST /api/v1/restore`, all or nothing, under the token's roles; an
 * archive replaces a data directory's files, so it is only ever restored
 * on the server's machine.
 */
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { openLocalStore, resolveDataDir } from "./local_store.ts";
import type { StoreFlagValues } from "./local_store.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { checkExport } from "../store/export_marker.ts";
import { looksLikeArchive } from "./backup_archive.ts";
import { restoreBackup } from "./backup_restore.ts";
import type { CliContext } from "./contexts.ts";
import { ApiObjects } from "./api_objects.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary:
    "Restore objects from a kudurru export, or a data directory from a backup",
  usage:
    "  kudurru restore FILE|- [--dry-run] [--force] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  an export cut short (its last line missing) is refused before anything is written\n" +
    "  Through the API of --context, or of the current context (kudurru login): every object is\n" +
    "  checked first and one the token may not write, or one a file owns, refuses the whole restore;\n" +
    "  --dry-run says what would change; --force takes over objects another manager owns (admin).\n" +
    "  With --data-dir or --config, or when not logged in, this machine's data directory.\n" +
    "  A backup archive (kudurru backup) is restored on the server's machine only, while no server\n" +
    "  runs: it replaces state.db, keys/ and querylog.db, keeping the replaced files as\n" +
    "  <name>.bak-<time> unless --force.",
  async run(args, io) {
    const { values, positionals } = parseFlags("restore", args, {
      ...TARGET_FLAGS,
      force: { type: "boolean" },
      "dry-run": { type: "boolean" },
    }, 1);
    const [file] = positionals;
    if (!file) {
      throw new UsageError(
        "kudurru restore: name the FILE to restore (or - for stdin)",
      );
    }
    const target = await resolveTarget("restore", values, io);
    const dryRun = values["dry-run"] ?? false;
    const force = values.force ?? false;
    if (dryRun && target.kind === "local") {
      throw new UsageError(
        "kudurru restore: --dry-run works through a server's API (kudurru login, or --context NAME)",
      );
    }
    if (file !== "-") {
      const bytes = await readBytes(file);
      if (looksLikeArchive(bytes)) {
        if (target.kind === "api") {
          throw new Error(
            `a backup archive is restored on the server's own data directory: kudurru restore ${file} --data-dir DIR while the server is stopped`,
          );
        }
        return await restoreArchive(target.store, file, bytes, force, io);
      }
      if (bytes.subarray(0, 4096).includes(0)) {
        throw new Error(
          `Cannot restore "${file}": it is neither a kudurru backup archive nor an export (kudurru backup and kudurru export write those)`,
        );
      }
    } else if (force && target.kind === "local") {
      throw new UsageError(
        "kudurru restore: --force is for a backup archive, which is read from a FILE",
      );
    }
    const text = file === "-" ? await io.readStdin() : await readBackup(file);
    const what = file === "-" ? "standard input" : `"${file}"`;
    if (text.trim() === "") {
      // What `kudurru export > FILE` leaves on a disk with no room at all.
      throw new Error(
        `Cannot use ${what}: it is empty; it was probably written on a full disk: use an earlier backup, or export again`,
      );
    }
    if (checkExport(text, what) === "unmarked") {
      io.stderr(
        `note: ${what} lacks the first and last lines of a kudurru export (hand-written, or from an older kudurru), so it cannot be checked for being complete\n`,
      );
    }
    if (target.kind === "api") {
      return await restoreOverApi(target.context, file, text, {
        dryRun,
        force,
      }, io);
    }
    const store = await openLocalStore(target.store);
    try {
      await store.restore(text);
      io.stdout(`restored ${file}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

async function restoreArchive(
  local: StoreFlagValues,
  file: string,
  bytes: Uint8Array,
  force: boolean,
  io: CommandIO,
): Promise<number> {
  const dataDir = resolveDataDir(local);
  const done = await restoreBackup(bytes, `"${file}"`, dataDir, { force });
  io.stdout(
    `restored ${file} (made ${done.manifest.createdAt} by kudurru ${done.manifest.kudurruVersion} on ${done.manifest.node}) into ${dataDir}: ${
      done.written.join(", ")
    }\n`,
  );
  for (const aside of done.keptAside) io.stderr(`kept ${aside}\n`);
  return 0;
}

const SAID: Record<string, string> = {
  created: "created",
  changed: "configured",
  unchanged: "unchanged",
};

/** One line per object, as `apply -f` prints them, then what was done. */
async function restoreOverApi(
  context: CliContext,
  file: string,
  text: string,
  opts: { dryRun: boolean; force: boolean },
  io: CommandIO,
): Promise<number> {
  const query = new URLSearchParams();
  if (opts.dryRun) query.set("dryRun", "true");
  if (opts.force) query.set("force", "true");
  using api = await ApiObjects.open(context);
  const data = await api.callText(
    "POST",
    `/api/v1/restore${query.size > 0 ? `?${query}` : ""}`,
    text,
    "application/yaml",
  ) as { results?: { object: string; result: string }[] } | undefined;
  const results = data?.results ?? [];
  const suffix = opts.dryRun ? " (dry run)" : "";
  for (const r of results) {
    io.stdout(`${r.object} ${SAID[r.result] ?? r.result}${suffix}\n`);
  }
  io.stdout(
    opts.dryRun
      ? `dry run: nothing was written; ${file} would restore as above\n`
      : `restored ${file}\n`,
  );
  return 0;
}

async function readBytes(file: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}

async function readBackup(file: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}
