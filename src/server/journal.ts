/**
 * The zone journal (src/zone/journal.ts) in local.db, opened for the life
 * of the server: the leader records each zone's changes into it, and the
 * listener workers read it for IXFR.
 */
import type { Logger } from "../log/logger.ts";
import { ZoneJournal } from "../zone/journal.ts";
import { openLocalDb } from "./local_db.ts";

/** The open journal and how to close it. */
export interface OpenJournal {
  journal: ZoneJournal;
  close(): void;
}

/**
 * The journal in the local.db at `path`; undefined, with a warning, when
 * the file cannot be opened (a newer kudurru's, a failing disk): IXFR then
 * answers with the whole zone.
 */
export function openJournal(
  path: string,
  logger: Logger,
): OpenJournal | undefined {
  try {
    const db = openLocalDb(path);
    const journal = new ZoneJournal(db, {
      onDamaged: (zone, error) =>
        logger.warn(
          "The zone's journal is damaged; dropped it, and IXFR from before now answers with the whole zone",
          { zone, path, error },
        ),
    });
    return { journal, close: () => db.close() };
  } catch (error) {
    logger.warn(
      "Cannot open the zone journal; IXFR answers with the whole zone",
      { path, error },
    );
    return undefined;
  }
}
