/**
 * The writer's connection to querylog.db, and what keeps it open: a file
 * that does not open (a full disk, a newer kudurru's file, a directory where
 * the file should be) is tried again on later ticks with a growing pause,
 * and a damaged one is moved aside for a new one, at start or while running.
 *
 * A query log that cannot be opened once must not stay off for the life of
 * the process: a full disk that gets space back, or a file moved out of the
 * way, puts it back to work without a restart.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import { BatchStore } from "./batch_store.ts";
import { moveAsideDamaged } from "./db.ts";
import { isDamagedDatabaseError } from "../sqlite/damaged_file.ts";
import { HOUR_MS, MINUTE_MS } from "./settings.ts";
import { errorText } from "./write_outage.ts";
import { notAQueryLogFile } from "./path_check.ts";

/** Thrown to a reader of the writer's database while it is not open. */
export class QueryLogNotOpenError extends Error {
  constructor(path: string, why: string | undefined, options?: ErrorOptions) {
    super(
      `The query log "${path}" is not open${
        why === undefined ? "" : `: ${why}`
      }; the writer tries to open it again`,
      options,
    );
    this.name = "QueryLogNotOpenError";
  }
}

/**
 * A damaged file is replaced at most this often (counted from the last
 * replacement that worked): a disk that damages every file it is given must
 * not fill up with copies.
 */
export const MIN_MS_BETWEEN_REPLACEMENTS = HOUR_MS;
/** The first pause before opening again after a failure; it doubles. */
export const FIRST_REOPEN_DELAY_MS = 1000;
/** The longest pause between attempts to open. */
export const MAX_REOPEN_DELAY_MS = MINUTE_MS;

export interface WriterConnectionOptions {
  path: string;
  /** Opens (creates, migrates) the file; throws when it cannot. */
  open: () => DatabaseSync;
  logger: Logger;
  now: () => number;
}

/** What an attempt to open said. */
export type OpenResult =
  | { open: true }
  | { open: false; error?: unknown };

/** A damaged file moved aside, waiting for its replacement to open. */
interface PendingReplacement {
  movedTo: string;
  error: unknown;
}

export class WriterConnection {
  /** Attempts to open that failed. */
  failedOpens = 0;
  /** Damaged files moved aside and replaced with a new file that opened. */
  damagedFilesReplaced = 0;
  /** Times the open file was found deleted or replaced at its path (lostFromPath). */
  filesLostFromPath = 0;
  readonly #opts: WriterConnectionOptions;
  #open: { db: DatabaseSync; store: BatchStore } | undefined;
  #lastReplacement = -Infinity;
  #pending: PendingReplacement | undefined;
  #retryAt = -Infinity;
  #retryDelay = FIRST_REOPEN_DELAY_MS;
  #lastOpenError: unknown;
  /** Device and inode of the open file, when the platform tells them. */
  #identity: FileIdentity | undefined;
  /** Of its write-ahead log, as last seen while the file was at its path. */
  #walIdentity: FileIdentity | undefined;

  constructor(opts: WriterConnectionOptions) {
    this.#opts = opts;
  }

  get isOpen(): boolean {
    return this.#open?.db.isOpen === true;
  }

  /**
   * The open database.
   * @throws {QueryLogNotOpenError} while it is not open
   */
  get db(): DatabaseSync {
    if (this.#open?.db.isOpen) return this.#open.db;
    throw this.#notOpen();
  }

  /** The batch store on the open database; throws like `db`. */
  get store(): BatchStore {
    if (this.#open?.db.isOpen) return this.#open.store;
    throw this.#notOpen();
  }

  #notOpen(): QueryLogNotOpenError {
    const why = this.#lastOpenError === undefined
      ? undefined
      : errorText(this.#lastOpenError);
    return new QueryLogNotOpenError(this.#opts.path, why, {
      cause: this.#lastOpenError,
    });
  }

  /**
   * Opens the file when it is not open and the pause after the last failed
   * attempt is over (or at once with `force`). Never throws.
   */
  openIfDue(force = false): OpenResult {
    if (this.isOpen) return { open: true };
    if (!force && this.#opts.now() < this.#retryAt) return { open: false };
    try {
      this.#openOrReplace();
      return { open: true };
    } catch (err) {
      this.#openFailed(err);
      return { open: false, error: err };
    }
  }

  /**
   * After a write or a sweep failed with `err`: when it says the file is
   * damaged (and no replacement worked within the hour), closes it, moves
   * it aside and opens a new one; `replaced` when the new one is open.
   * When it does not open, later ticks try again (openIfDue). Never throws:
   * a failure to move or open is the `error` returned.
   */
  replaceDamaged(err: unknown): { replaced: boolean; error?: unknown } {
    if (!this.#mayReplace(err)) return { replaced: false };
    this.#forget();
    try {
      this.#moveAside(err);
      this.#attach();
      return { replaced: true };
    } catch (replaceErr) {
      this.#openFailed(replaceErr);
      return { replaced: false, error: replaceErr };
    }
  }

  /**
   * True, after forgetting the handle, when the open file no longer sits at
   * the path: deleted, or replaced (by a restore, or by hand). SQLite would
   * go on writing into the deleted file and lose every event, reporting
   * them written; the next openIfDue opens what is at the path instead (a
   * new file, or a damaged one moved aside). A stat or two: call it per
   * flush, not per event.
   */
  lostFromPath(): boolean {
    const identity = this.#identity;
    if (!this.isOpen || identity === undefined) return false;
    const { path } = this.#opts;
    if (sameFile(fileIdentity(path), identity)) {
      this.#walIdentity = fileIdentity(`${path}-wal`);
      return false;
    }
    this.filesLostFromPath++;
    this.lost(new Error("the file was deleted or replaced while open"));
    // Our write-ahead log, left at the path, would be read as part of
    // whatever file is there now (SQLite finds a WAL by name): its pages
    // laid over a new file or a restored one. It belongs to the lost file.
    if (sameFile(fileIdentity(`${path}-wal`), this.#walIdentity)) {
      for (const suffix of ["-wal", "-shm"]) {
        try {
          Deno.removeSync(`${path}${suffix}`);
        } catch {
          // Gone already, or not ours to remove: SQLite copes.
        }
      }
    }
    this.#walIdentity = undefined;
    return true;
  }

  /**
   * The handle turned out closed underneath the writer ("database is not
   * open"): forgets it, so the next tick opens the file again.
   */
  lost(err: unknown): void {
    this.#forget();
    this.#lastOpenError = err;
    this.#retryAt = -Infinity;
  }

  close(): void {
    this.#forget();
  }

  #mayReplace(err: unknown): boolean {
    return isDamagedDatabaseError(err) &&
      this.#opts.now() - this.#lastReplacement >= MIN_MS_BETWEEN_REPLACEMENTS;
  }

  /** Opens the file; one that is damaged is moved aside for a new one. */
  #openOrReplace(): void {
    // Never moved aside as damaged: it is not ours.
    const occupied = notAQueryLogFile(this.#opts.path);
    if (occupied !== undefined) {
      throw new Error(
        `${occupied}: move it away, and the log is started there at the next try`,
      );
    }
    try {
      this.#attach();
    } catch (err) {
      if (!this.#mayReplace(err)) throw err;
      this.#moveAside(err);
      this.#attach();
    }
  }

  #moveAside(err: unknown): void {
    const movedTo = moveAsideDamaged(this.#opts.path);
    this.#pending = { movedTo, error: err };
  }

  /** Opens the file and its batch store; a pending replacement is done. */
  #attach(): void {
    const db = this.#opts.open();
    try {
      this.#open = { db, store: new BatchStore(db) };
    } catch (err) {
      db.close();
      throw err;
    }
    this.#identity = fileIdentity(this.#opts.path);
    // Opening in WAL mode made the write-ahead log (lostFromPath).
    this.#walIdentity = fileIdentity(`${this.#opts.path}-wal`);
    this.#retryAt = -Infinity;
    this.#retryDelay = FIRST_REOPEN_DELAY_MS;
    this.#lastOpenError = undefined;
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    this.#lastReplacement = this.#opts.now();
    this.damagedFilesReplaced++;
    this.#opts.logger.error(
      "The query log was damaged; moved it aside and started a new one",
      { path: this.#opts.path, movedTo: pending.movedTo, error: pending.error },
    );
  }

  #openFailed(err: unknown): void {
    this.failedOpens++;
    this.#lastOpenError = err;
    this.#retryAt = this.#opts.now() + this.#retryDelay;
    this.#retryDelay = Math.min(this.#retryDelay * 2, MAX_REOPEN_DELAY_MS);
  }

  #forget(): void {
    try {
      if (this.#open?.db.isOpen) this.#open.db.close();
    } catch {
      // Closing a file on a failing disk may fail too; it is let go anyway.
    }
    this.#open = undefined;
  }
}

interface FileIdentity {
  dev: number;
  ino: number;
}

/** The device and inode of the file at `path`; undefined when missing or not told. */
function fileIdentity(path: string): FileIdentity | undefined {
  try {
    const { dev, ino } = Deno.statSync(path);
    return ino === null ? undefined : { dev, ino };
  } catch {
    return undefined;
  }
}

function sameFile(
  a: FileIdentity | undefined,
  b: FileIdentity | undefined,
): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev &&
    a.ino === b.ino;
}
