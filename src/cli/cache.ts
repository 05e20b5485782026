/**
 * `kudurru cache flush [NAME [--subtree]]`: drops cached answers, all of
 * them, those for one name, or with `--subtree` those for a name and every
 * name below it (Unbound's `flush_zone`, BIND's `rndc flushtree`; the root
 * `.` with `--subtree` is everything, as in both). With a server running on
 * the data directory it asks that server through the local control socket;
 * without one it removes the entries from the saved cache in local.db, so
 * the next start does not bring them back. "No server" means no socket,
 * or nobody listening on it; a socket this user may not use, or a data
 * directory that is not there, is an error, never a quiet success.
 * With a context (target.ts) it asks the context's server through the API
 * (/api/v1/cache/flush) instead.
 */
import { join } from "node:path";
import { type Command, parseFlags, UsageError } from "./command.ts";
import { missingDataDirMessage, resolveDataDir } from "./local_store.ts";
import { isDirectory } from "../server/data_dir.ts";
import {
  flushNameProblem,
  requestCacheFlush,
  ServerNotRunningError,
} from "../server/control_socket.ts";
import { flushCacheDump, LOCAL_DB_FILE } from "../server/local_db.ts";
import { closestMatch } from "../config/closest_match.ts";
import { resolveTarget, TARGET_FLAGS, whereOf } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";

const SUBCOMMANDS = ["flush"];

const CACHE_FLAGS = { ...TARGET_FLAGS, subtree: { type: "boolean" } } as const;

export const cacheCommand: Command = {
  name: "cache",
  summary: "Flush cached answers",
  usage:
    "  kudurru cache flush [NAME [--subtree]] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  Without NAME every cached answer goes; with NAME, those for that exact name (every type).\n" +
    "  --subtree: NAME and every name below it (example.com: www.example.com too, not notexample.com); . --subtree is everything.\n" +
    "  A running server on the data directory flushes at once; otherwise the saved cache in local.db is cleaned.\n" +
    "  With --context, or a current context (kudurru login), the context's server flushes, through its API;\n" +
    "  --data-dir or --config mean this machine.",
  async run(args, io) {
    const { values, positionals } = parseFlags("cache", args, CACHE_FLAGS, 2);
    const [sub, name] = positionals;
    if (sub !== "flush") {
      const hint = sub ? closestMatch(sub, SUBCOMMANDS) : undefined;
      throw new UsageError(
        sub
          ? `kudurru cache: unknown subcommand "${sub}"${
            hint ? `; did you mean "${hint}"?` : ""
          }`
          : "kudurru cache: name a subcommand: flush",
      );
    }
    const subtree = values.subtree === true;
    if (subtree && name === undefined) {
      throw new UsageError(
        "kudurru cache flush: --subtree needs a NAME, the top of the subtree (such as example.com); to flush every cached answer, leave out both",
      );
    }
    const problem = name === undefined
      ? undefined
      : flushNameProblem(name, subtree);
    if (problem !== undefined) {
      throw new UsageError(`kudurru cache flush: ${problem}`);
    }
    /** "3 cached answers for x.example and below", "1 saved cached answer". */
    const what = (n: number, saved = "") =>
      `${n} ${saved}cached answer${n === 1 ? "" : "s"}${
        name === undefined ? "" : ` for ${name}${subtree ? " and below" : ""}`
      }`;
    const target = await resolveTarget("cache", values, io);
    if (target.kind === "api") {
      using api = await ApiObjects.open(target.context);
      const answer = await api.call("POST", "/api/v1/cache/flush", {
        ...(name !== undefined && { name }),
        ...(subtree && { subtree }),
      }) as { flushed: number };
      io.stdout(
        `Flushed ${what(answer.flushed)} from ${whereOf(target.context)}.\n`,
      );
      return 0;
    }
    const dataDir = resolveDataDir(target.store);
    if (!(await isDirectory(dataDir))) {
      io.stderr(`kudurru cache flush: ${missingDataDirMessage(dataDir)}\n`);
      return 1;
    }
    const path = join(dataDir, LOCAL_DB_FILE);
    try {
      const removed = await requestCacheFlush(dataDir, name, { subtree });
      // The dump the server started from goes too: should the server stop
      // before it empties it, the flushed answers must not come back.
      try {
        flushCacheDump(path, name, { subtree });
      } catch {
        // the running server's flush is what counts; the dump is a bonus
      }
      io.stdout(`Flushed ${what(removed)} from the running server.\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof ServerNotRunningError)) {
        io.stderr(
          `kudurru cache flush: ${err instanceof Error ? err.message : err}\n`,
        );
        return 1;
      }
    }
    let removed: number;
    try {
      removed = flushCacheDump(path, name, { subtree });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      io.stderr(
        `kudurru cache flush: no server is running on ${dataDir}, and the saved cache in ${path} cannot be cleaned: ${why}\n`,
      );
      return 1;
    }
    io.stdout(
      `No server is running on ${dataDir}; removed ${
        what(removed, "saved ")
      } from ${path}.\n`,
    );
    return 0;
  },
};
