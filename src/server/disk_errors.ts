/**
 * What to do about a failed write, for the messages of commands that write
 * files. "No space left on device" says what went wrong but not where to
 * look; a full disk and a read-only or failing one need different fixes
 * from the permission problem a generic "make it writable" hint assumes.
 */

/** True for ENOSPC and SQLite's SQLITE_FULL ("database or disk is full"). */
export function isDiskFull(err: unknown): boolean {
  return hasCode(err, "ENOSPC") ||
    /No space left on device|os error 28|database or disk is full|SQLITE_FULL/i
      .test(messageOf(err));
}

/** True for EROFS and EIO: the file system refuses every write. */
export function isReadOnlyOrFailing(err: unknown): boolean {
  return hasCode(err, "EROFS") || hasCode(err, "EIO") ||
    /Read-only file system|os error 30|Input\/output error|os error 5\b|disk I\/O error/i
      .test(messageOf(err));
}

/**
 * The advice for a write that failed in `dir`, starting with "; ", or ""
 * when the error is not about the disk.
 */
export function diskAdvice(err: unknown, dir: string): string {
  if (isDiskFull(err)) return `; the disk is full: free space in ${dir}`;
  if (isReadOnlyOrFailing(err)) {
    return `; the file system holding ${dir} may be read-only or failing`;
  }
  return "";
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function hasCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null &&
    (err as { code?: unknown }).code === code;
}
