/**
 * Reloads soon after another writer deletes an object that a source
 * declares. The usual case: a file declares an object the API also holds,
 * the loader leaves the API's copy alone (ManagedByOther), and then the API
 * copy is deleted (`kudurru delete`). Without this the file's version waited
 * for the next poll, up to a minute of NXDOMAIN for its names.
 */
import { KINDS } from "../api/v1alpha1/kinds.ts";
import { formatKey, keyOf } from "../api/v1alpha1/meta.ts";
import type { Logger } from "../log/logger.ts";
import type { Store } from "../store/store.ts";
import { pause } from "../async/pause.ts";

export interface DeletionWatchOptions {
  store: Store;
  /** Whether a deleted object ("DNSRecordSet/default/www") is declared by a source. */
  declared: (name: string) => boolean;
  /** Called for each such deletion; expected to coalesce (ObjectsLoader.trigger). */
  onDeleted: () => void;
  logger?: Logger;
  /** The first wait after a watch fails; doubles up to a minute. @default 1000 */
  retryMs?: number;
}

const MAX_RETRY_MS = 60_000;

/** Watches every kind until `signal` aborts; never throws. */
export async function watchDeletions(
  signal: AbortSignal,
  opts: DeletionWatchOptions,
): Promise<void> {
  await Promise.all(KINDS.map(({ kind }) => watchKind(kind, signal, opts)));
}

async function watchKind(
  kind: string,
  signal: AbortSignal,
  opts: DeletionWatchOptions,
): Promise<void> {
  let failures = 0;
  while (!signal.aborted) {
    try {
      // From now on: what was deleted before is the last load's business.
      const { resourceVersion } = await opts.store.list(kind, { limit: 1 });
      const watcher = opts.store.watch(kind, { resourceVersion, signal });
      try {
        for await (const event of watcher) {
          failures = 0;
          if (event.type !== "Deleted" || !event.object) continue;
          if (opts.declared(formatKey(keyOf(event.object)))) opts.onDeleted();
        }
      } finally {
        watcher.close();
      }
    } catch (err) {
      if (signal.aborted) return;
      // A missed deletion waits for the poll: no need to hurry back.
      opts.logger?.debug(`Cannot watch ${kind} objects for deletions`, {
        error: err,
      });
    }
    failures++;
    const first = opts.retryMs ?? 1000;
    await pause(Math.min(MAX_RETRY_MS, first * 2 ** (failures - 1)), signal);
  }
}
