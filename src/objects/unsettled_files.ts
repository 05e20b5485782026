/**
 * Holds back a file that is perhaps still being written. A file rewritten in
 * place passes through every prefix of its new text; a writer that pauses
 * (a slow generator behind `>`, a network copy) leaves a prefix in place for
 * seconds, and a prefix is valid YAML that simply declares fewer objects.
 * Applying it would delete the objects past the cut, and serve NXDOMAIN for
 * them, until the rest is written: the empty file (the shortest prefix) is
 * kept for the same reason (sources.ts).
 *
 * The rule: a file changed within the last FILE_SETTLE_MS that no longer
 * declares an object it manages, and that no other source declares either
 * (that would be a move), is held whole. Nothing of it is applied
 * (the object cut in half is not updated either) and nothing it owns is
 * deleted or taken over, until it has stood still for FILE_SETTLE_MS; then
 * the drop counts as meant. Edits that only add or change objects are applied
 * at once, and a deleted file's objects go at once: only removing objects from
 * a file that is still there waits.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import type { Diagnosis } from "./diagnosis.ts";
import type { Source } from "./sources.ts";

/**
 * How long a file must stand still before the objects it dropped are
 * deleted. Longer than the pauses of writers seen in practice (an audit's
 * writer paused 3 s) while removals still take effect within seconds.
 */
export const FILE_SETTLE_MS = 5_000;

export interface UnsettledInput {
  sources: readonly Source[];
  /** Per manager, the names of the objects its source declares this pass. */
  declared: ReadonlyMap<string, ReadonlySet<string>>;
  /** The stored objects by formatKey name. */
  stored: ReadonlyMap<string, KObject>;
  /** @default Date.now() */
  now?: number;
  /** @default FILE_SETTLE_MS */
  settleMs?: number;
}

export interface UnsettledFiles {
  /** Managers of the files held this pass. */
  held: Set<string>;
  diagnoses: Diagnosis[];
  /** When to look again: the soonest a held file can have settled. */
  retryAfterMs?: number;
}

/** Finds the files to hold this pass; see the module comment for the rule. */
export function findUnsettledFiles(input: UnsettledInput): UnsettledFiles {
  const now = input.now ?? Date.now();
  const settleMs = input.settleMs ?? FILE_SETTLE_MS;
  const out: UnsettledFiles = { held: new Set(), diagnoses: [] };
  const dropped = droppedByManager(input);
  for (const source of input.sources) {
    if (source.kind !== "file" || source.modifiedMs === undefined) continue;
    const age = now - source.modifiedMs;
    // A clock far off (an NFS server's) must not hold a file for ever.
    if (Math.abs(age) >= settleMs) continue;
    const names = dropped.get(source.manager);
    if (!names?.length) continue;
    out.held.add(source.manager);
    const wait = settleMs - age;
    out.retryAfterMs = Math.min(out.retryAfterMs ?? wait, wait);
    out.diagnoses.push({
      severity: "info",
      reason: "Unsettled",
      source: source.name,
      message: `Holding "${source.name}" for ${seconds(wait)}: it changed ${
        seconds(Math.max(0, age))
      } ago and no longer declares ${listNames(names)}`,
      hint: `a write may still be going on: nothing of the file is applied, ` +
        `nor anything it held deleted, until it has not changed for ${
          seconds(settleMs)
        }`,
    });
  }
  return out;
}

/**
 * Per file manager, the stored objects it manages that no source declares
 * any more. One another file declares now moved there: nothing is deleted,
 * nothing to wait for.
 */
function droppedByManager(input: UnsettledInput): Map<string, string[]> {
  const declaredAnywhere = new Set<string>();
  for (const names of input.declared.values()) {
    names.forEach((n) => declaredAnywhere.add(n));
  }
  const dropped = new Map<string, string[]>();
  for (const [name, obj] of input.stored) {
    const owner = obj.metadata.managedBy ?? "";
    if (!owner.startsWith("file:") || obj.metadata.deletionTimestamp) continue;
    if (declaredAnywhere.has(name)) continue;
    const names = dropped.get(owner) ?? [];
    names.push(name);
    dropped.set(owner, names);
  }
  return dropped;
}

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
