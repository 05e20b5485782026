/**
 * What the server keeps open in local.db for its whole life: the zone
 * journal (src/zone/journal.ts), which the leader writes and the listener
 * workers read for IXFR, and the copies of secondary zones
 * (src/transfer/secondary_copies.ts).
 */
import type { Logger } from "../log/logger.ts";
import { SecondaryCopies } from "../transfer/secondary_copies.ts";
import { ZoneJournal } from "../zone/journal.ts";
import { openLocalDb } from "./local_db.ts";

export interface LocalStores {
  journal: ZoneJournal;
  copies: SecondaryCopies;
  close(): void;
}

/**
 * The stores in the local.db at `path`; undefined, with a warning, when the
 * file cannot be opened (a newer kudurru's, a failing disk): IXFR then
 * answers with the whole zone, and secondary zones are transferred again
 * at every start.
 */
export function openLocalStores(
  path: string,
  logger: Logger,
): LocalStores | undefined {
  try {
    const db = openLocalDb(path);
    const journal = new ZoneJournal(db, {
      onDamaged: (zone, error) =>
        logger.warn(
          "The zone's journal is damaged; dropped it, and IXFR from before now answers with the whole zone",
          { zone, path, error },
        ),
    });
    return {
      journal,
      copies: new SecondaryCopies(db),
      close: () => db.close(),
    };
  } catch (error) {
    logger.warn(
      "Cannot open local.db; IXFR answers with the whole zone and secondary zones are not kept over a restart",
      { path, error },
    );
    return undefined;
  }
}
