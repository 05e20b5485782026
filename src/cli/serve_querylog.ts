/**
 * The query log as `kudurru serve` opens it: a damaged file moved aside
 * for a new one, no log at all rather than no DNS, and a warning when
 * others may read who asked for what.
 */
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import {
  createQueryLogWriter,
  isDamagedDatabaseError,
  moveAsideDamaged,
  QUERYLOG_DB_FILE,
} from "../querylog/mod.ts";

/**
 * Warns when others may read the query history: querylog.db readable by
 * everyone in a data directory everyone may enter (one made before kudurru
 * created its directories 0750 and its databases 0640, or by hand). Never
 * changes a mode the user chose.
 */
export function warnIfQueryLogPublic(dataDir: string, logger: Logger): void {
  try {
    const dirMode = Deno.statSync(dataDir).mode ?? 0;
    const path = join(dataDir, QUERYLOG_DB_FILE);
    const fileMode = Deno.statSync(path).mode ?? 0;
    if ((dirMode & 0o001) && (fileMode & 0o004)) {
      logger.warn(
        "Every user of this machine may read the query log (who asked for what); chmod o-rwx the data directory to keep it private",
        { path, mode: `0${(fileMode & 0o777).toString(8)}`, dataDir },
      );
    }
  } catch {
    // no query log yet: it is created 0640
  }
}

/**
 * The query-log writer, or none when querylog.db cannot be opened (a newer
 * schema, a corrupt file): DNS must not stop over its log. Logged loudly.
 */
export function openQueryLog(config: Config, logger: Logger) {
  const path = join(config.node.dataDir, QUERYLOG_DB_FILE);
  const open = () =>
    createQueryLogWriter({
      path,
      node: config.node.name,
      settings: config.querylog,
      logger,
    });
  try {
    try {
      return open();
    } catch (err) {
      if (!isDamagedDatabaseError(err)) throw err;
      // A damaged file must not silence the log for good: keep it aside
      // for a look later and start a new one.
      const aside = moveAsideDamaged(path);
      logger.error(
        "The query log was damaged; moved it aside and started a new one",
        {
          path,
          movedTo: aside,
          error: err,
        },
      );
      return open();
    }
  } catch (err) {
    logger.error("Cannot open the query log; serving without it", {
      path,
      error: err,
    });
    return undefined;
  }
}
