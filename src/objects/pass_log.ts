/**
 * The per-object lines of one load pass ("Applied file-managed object",
 * "Deleted file-managed object"): an edit touches a few objects and each
 * line says what changed, but a new file of 1,500 record sets would write
 * 1,500 lines. The first PASS_INFO_LINES go out at INFO, one more says the
 * rest go to DEBUG; the pass's own summary line counts them all.
 */
import type { Fields, Logger } from "../log/logger.ts";

/** Per-object INFO lines in one pass before the rest go to DEBUG. */
export const PASS_INFO_LINES = 20;

/** A logger for one pass whose INFO lines stop at `limit`. */
export function passLogger(
  logger: Logger | undefined,
  limit = PASS_INFO_LINES,
): Logger | undefined {
  if (logger === undefined) return undefined;
  let infos = 0;
  const limited: Logger = {
    debug: (msg, fields) => logger.debug(msg, fields),
    warn: (msg, fields) => logger.warn(msg, fields),
    error: (msg, fields) => logger.error(msg, fields),
    info(msg: string, fields?: Fields) {
      infos++;
      if (infos <= limit) return logger.info(msg, fields);
      if (infos === limit + 1) {
        logger.info(
          `More objects changed in this load; their lines go to DEBUG (the "Loaded file-managed objects" line counts them)`,
          { shown: limit },
        );
      }
      logger.debug(msg, fields);
    },
    with: (fields) => logger.with(fields),
  };
  return limited;
}
