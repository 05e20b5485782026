/**
 * Statuses the list loop wrote that the watch has not shown yet. Until the
 * Modified event of its own write arrives, a pass must compare against what
 * it wrote, not the older mirrored status, or it would write again (and, for
 * a condition that flipped, stamp a second lastTransitionTime).
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import type { MirrorChange } from "../snapshot/kind_mirror.ts";

function resourceVersionAtLeast(seen: string, written: string): boolean {
  const a = Number(seen);
  const b = Number(written);
  // Our drivers count; an opaque version can only be matched exactly.
  return Number.isSafeInteger(a) && Number.isSafeInteger(b)
    ? a >= b
    : seen === written;
}

export class WrittenStatuses {
  #written = new Map<string, KObject>();

  /** Remembers the object a status write returned. */
  set(key: string, stored: KObject): void {
    this.#written.set(key, stored);
  }

  /** Forgets writes the mirror has caught up with. */
  observe(change: MirrorChange): void {
    if (change.type === "Resynced") return this.#written.clear();
    const mine = this.#written.get(change.key);
    if (!mine) return;
    const seen = change.current?.object.metadata.resourceVersion;
    if (
      change.current === undefined ||
      (seen !== undefined &&
        resourceVersionAtLeast(seen, mine.metadata.resourceVersion ?? ""))
    ) this.#written.delete(change.key);
  }

  /** `obj` with the status last written for it, if the mirror is behind. */
  latest<T extends KObject>(key: string, obj: T): T {
    const mine = this.#written.get(key);
    return mine ? { ...obj, status: mine.status } : obj;
  }
}
