/**
 * Snapshots posted to a listener worker without the zones it already holds.
 * Posting copies the message (structured clone): a 100,000-record zone took
 * ~260 ms of the main thread per worker and ~850 ms until the worker had
 * it, once for every snapshot, even one that changed only a block list. A
 * zone whose content is the very object posted last time (the builder
 * reuses a zone's content until the zone changes) goes as its name alone,
 * and the worker puts back the content it kept.
 *
 * Messages to one worker arrive in the order they were posted, so the
 * worker's copy is the one its sender remembers; a restarted worker gets a
 * new sender and is posted everything again.
 */
import type { Snapshot } from "../pipeline/snapshot.ts";
import type { ZoneContent } from "../zone/types.ts";

/** A zone the worker already holds, by name. */
export interface KeptZone {
  kept: string;
}

/** A Snapshot as posted: zones the worker holds are named, not copied. */
export interface PostedSnapshot extends Omit<Snapshot, "zones"> {
  zones: (ZoneContent | KeptZone)[];
}

/** The main thread's side, one per worker. */
export class SnapshotSender {
  /** The contents the worker holds, by zone name. */
  #held = new Map<string, ZoneContent>();

  /** `snapshot` as it should be posted; the worker will hold its zones. */
  post(snapshot: Snapshot): PostedSnapshot {
    const held = new Map<string, ZoneContent>();
    const zones = snapshot.zones.map((zone): ZoneContent | KeptZone => {
      // Two contents may share a name (the index keeps the first): only
      // the first of a name is kept and named.
      if (held.has(zone.name)) return zone;
      held.set(zone.name, zone);
      return this.#held.get(zone.name) === zone ? { kept: zone.name } : zone;
    });
    this.#held = held;
    return { ...snapshot, zones };
  }
}

/** The worker's side. */
export class SnapshotReceiver {
  #held = new Map<string, ZoneContent>();

  /**
   * The snapshot `posted` stands for, with the contents kept from the
   * previous one put back.
   *
   * @throws {Error} when a zone named as kept was never received (a bug:
   *   senders name only what they posted to this worker)
   */
  receive(posted: PostedSnapshot): Snapshot {
    const held = new Map<string, ZoneContent>();
    const zones = posted.zones.map((zone) => {
      if (!("kept" in zone)) {
        if (!held.has(zone.name)) held.set(zone.name, zone);
        return zone;
      }
      const content = this.#held.get(zone.kept);
      if (content === undefined) {
        throw new Error(
          `Snapshot ${posted.version} names zone ${zone.kept} as kept, but it was never received`,
        );
      }
      held.set(zone.kept, content);
      return content;
    });
    this.#held = held;
    return { ...posted, zones };
  }
}
