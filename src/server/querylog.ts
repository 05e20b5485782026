/**
 * The query log as `kudurru serve` opens it: never in the way of DNS (a
 * file that does not open is tried again later), a readiness note while it
 * is not written, and a warning when others may read who asked for what.
 */
import type { LiveFeed } from "../querylog/live_feed.ts";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { HealthCheck } from "../health/health.ts";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import {
  createQueryLogWriter,
  type QueryLogWriter,
} from "../querylog/writer.ts";

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
 * The query-log writer. A querylog.db that does not open (a full disk, a
 * newer kudurru's file) must not stop DNS, nor silence the log for good: the
 * writer logs it, keeps events in memory (up to its bound, counting what it
 * drops) and opens the file again once it can; a damaged file is moved aside
 * for a new one (src/querylog/writer_connection.ts).
 */
export function openQueryLog(
  config: Config,
  logger: Logger,
  liveFeed?: LiveFeed,
): QueryLogWriter {
  return createQueryLogWriter({
    path: join(config.node.dataDir, QUERYLOG_DB_FILE),
    node: config.node.name,
    settings: config.querylog,
    logger,
    ...(liveFeed && { liveFeed }),
  });
}

/**
 * A readiness note while the query log is not written: DNS answers, so the
 * node stays ready (a load balancer must not take it out over its log), but
 * /healthz/ready says why the log is empty.
 */
export function queryLogHealthCheck(
  writer: Pick<QueryLogWriter, "stats">,
): HealthCheck {
  return () => {
    const stats = writer.stats();
    if (!stats.failing) return { ready: true };
    return {
      ready: true,
      reason: `the query log is not being written: ${
        stats.lastError ?? "not open"
      }`,
    };
  };
}
