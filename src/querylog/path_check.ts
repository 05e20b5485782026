/**
 * What sits at a query log's path when it is no file (a directory, a
 * socket): SQLite says only "disk I/O error" then, which names neither the
 * path nor the cause. Both the server and the CLI say it plainly.
 */

/** Why `path` cannot hold a query log, or undefined (a file, or nothing yet). */
export function notAQueryLogFile(path: string): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return undefined; // missing: opening it says so, or makes it
  }
  return info.isFile
    ? undefined
    : `"${path}" is a directory or another non-file, not a query log`;
}
