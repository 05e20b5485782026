/**
 * The zone controller: while this node leads ("controller" elector), it keeps
 * every DNSZone's serial, content hash, record count and Ready condition, and
 * every DNSRecordSet's conditions, in step with the objects
 * (docs/design.md#zone-serials).
 * It stamps `serial = max(prev + 1, unix_now)` only when a zone's content
 * hash changes. The work itself is in zone_reconciler.ts.
 */
import type { Logger } from "../log/logger.ts";
import type { Store } from "../store/store.ts";
import type { Backoff } from "../snapshot/kind_mirror.ts";
import {
  startZoneReconciler,
  type ZoneReconciler,
  type ZoneReconcilerOptions,
} from "./zone_reconciler.ts";
import type { RebuildHold } from "../snapshot/rebuild_hold.ts";

export interface ZoneControllerOptions {
  store: Store;
  logger: Logger;
  /** @default () => new Date() */
  now?: () => Date;
  /** Changes within this window become one reconcile pass. @default 100 */
  debounceMs?: number;
  /** Wait after a failed status write before trying again. @default 1000 */
  retryMs?: number;
  /** Retry timing when a watch fails. */
  backoff?: Backoff;
  /**
   * The names in `upstreams.groups`: a forward zone naming another is not
   * Ready. Unchecked when absent.
   */
  upstreamGroups?: readonly string[];
  /**
   * While held (the objects loader writing a file's objects), passes wait for
   * the release (at most its `maxWaitMs`): one build of the whole change.
   */
  hold?: RebuildHold;
  /** See ZoneReconcilerOptions.onNewSerial. */
  onNewSerial?: ZoneReconcilerOptions["onNewSerial"];
  /** See ZoneReconcilerOptions.notifyFailure. */
  notifyFailure?: ZoneReconcilerOptions["notifyFailure"];
}

export interface ZoneController {
  /** Statuses are planned again soon (see ZoneReconciler.refresh). */
  refresh(): void;
  /** Gives up leadership work and resolves when every write in flight has ended. */
  stop(): Promise<void>;
}

/** Starts the controller; it does its work only while this node leads. */
export function startZoneController(
  opts: ZoneControllerOptions,
): ZoneController {
  const log = opts.logger.with({ component: "zone-controller" });
  const abort = new AbortController();
  const stopping: Promise<void>[] = [];
  let reconciler: ZoneReconciler | undefined;

  function stopReconciler(): void {
    if (reconciler === undefined) return;
    stopping.push(reconciler.stop());
    reconciler = undefined;
  }

  const elector = opts.store.elector("controller");
  const running = elector.run(
    abort.signal,
    () => {
      // An elector may hand over leadership after stop() has begun (or even
      // after run() ended); work started then would never be stopped.
      if (abort.signal.aborted) return;
      log.info("Leading: reconciling zones");
      stopReconciler();
      reconciler = startZoneReconciler({
        store: opts.store,
        logger: log,
        now: opts.now ?? (() => new Date()),
        debounceMs: opts.debounceMs ?? 100,
        ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
        ...(opts.backoff ? { backoff: opts.backoff } : {}),
        ...(opts.upstreamGroups && { upstreamGroups: opts.upstreamGroups }),
        ...(opts.hold ? { hold: opts.hold } : {}),
        ...(opts.onNewSerial && { onNewSerial: opts.onNewSerial }),
        ...(opts.notifyFailure && { notifyFailure: opts.notifyFailure }),
      });
    },
    () => {
      if (reconciler !== undefined) log.info("No longer leading: stopped");
      stopReconciler();
    },
  ).catch((err) => {
    log.error("The controller election failed", { error: err });
  });

  return {
    refresh: () => reconciler?.refresh(),
    async stop() {
      abort.abort();
      await running;
      stopReconciler();
      await Promise.all(stopping);
    },
  };
}
