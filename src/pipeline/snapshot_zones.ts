/**
 * The zone index of a snapshot, built once however many stages read it:
 * the authoritative stage answers from it, the upstream stage asks it
 * which names are ours before it believes an upstream about them.
 */
import { buildZoneIndex, type ZoneIndex } from "../zone/index.ts";
import type { Snapshot } from "./snapshot.ts";

const indexes = new WeakMap<Snapshot, ZoneIndex>();

/** The index of `snapshot`'s primary and forward zones. */
export function zoneIndexOf(snapshot: Snapshot): ZoneIndex {
  let index = indexes.get(snapshot);
  if (index === undefined) {
    index = buildZoneIndex(snapshot.zones, snapshot.forwardZones);
    indexes.set(snapshot, index);
  }
  return index;
}
