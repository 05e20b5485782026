/**
 * The temporary blocking switch: `kudurru blocking disable
 * 5m` stores until when blocking is off as the runtime value
 * `blocking.disabledUntil` (Kudurru.status.blocking.disabledUntil) in the
 * Store, so it survives a restart and reaches every node; the control plane
 * watches it (watchBlockingState) and puts it into
 * BlockingSnapshot.disabledUntil for the workers. It expires by itself: a
 * past time means on, so nobody has to remember to switch blocking back.
 */
import type { Logger } from "../log/logger.ts";
import type {
  RequestOrigin,
  SetRuntimeOptions,
  Store,
} from "../store/store.ts";
import { pause } from "../async/pause.ts";

/** The runtime key (Store.getRuntime/setRuntime) holding an ISO 8601 time. */
export const BLOCKING_DISABLED_KEY = "blocking.disabledUntil";

/**
 * The longest temporary disable: 24 hours. Longer, or for good, belongs in
 * the configuration (`blocking.enabled`, a Policy), where it is visible and
 * reviewed; a forgotten timer must not leave a network unprotected for days.
 */
export const MAX_BLOCKING_DISABLE_MS = 24 * 3_600_000;

/** The Store methods this file uses; any Store (or a test double) has them. */
export type RuntimeStore = Pick<Store, "getRuntime" | "setRuntime">;

export interface BlockingStateOptions extends RequestOrigin {
  /** @default () => new Date() */
  now?: () => Date;
  /** Who asked, for the audit row ("cli", a user name). */
  actor?: string;
}

const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of a stored disabledUntil, or undefined when it is not an ISO 8601 time. */
export function parseDisabledUntil(text: string): number | undefined {
  if (!ISO_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Switches blocking off for `forMs` from now, everywhere, replacing any
 * earlier disable. Resolves to the time blocking comes back on. Throws a
 * RangeError unless 0 < forMs <= MAX_BLOCKING_DISABLE_MS.
 */
export async function disableBlocking(
  store: RuntimeStore,
  forMs: number,
  opts: BlockingStateOptions = {},
): Promise<Date> {
  if (!Number.isFinite(forMs) || forMs <= 0) {
    throw new RangeError(
      `Cannot disable blocking for ${forMs} ms: the duration must be positive`,
    );
  }
  if (forMs > MAX_BLOCKING_DISABLE_MS) {
    throw new RangeError(
      `Cannot disable blocking for more than 24h (asked for ${forMs} ms); switch it off in the configuration instead`,
    );
  }
  const now = opts.now ?? (() => new Date());
  const until = new Date(now().getTime() + forMs);
  await store.setRuntime(
    BLOCKING_DISABLED_KEY,
    until.toISOString(),
    originOf(opts),
  );
  return until;
}

/** Switches blocking back on everywhere now (harmless when it is on). */
export async function enableBlocking(
  store: RuntimeStore,
  opts: Pick<BlockingStateOptions, "actor" | "authorization" | "client"> = {},
): Promise<void> {
  await store.setRuntime(BLOCKING_DISABLED_KEY, null, originOf(opts));
}

/** The audit fields of `opts` that are set. */
function originOf(
  opts: Pick<BlockingStateOptions, "actor" | "authorization" | "client">,
): SetRuntimeOptions {
  return {
    ...(opts.actor !== undefined && { actor: opts.actor }),
    ...(opts.authorization !== undefined &&
      { authorization: opts.authorization }),
    ...(opts.client !== undefined && { client: opts.client }),
  };
}

/**
 * Epoch ms until which blocking is off, or undefined when it is on: no value,
 * a value that is not a time, or a time that has passed.
 */
export async function readBlockingDisabledUntil(
  store: RuntimeStore,
  now: () => Date = () => new Date(),
): Promise<number | undefined> {
  const stored = await store.getRuntime(BLOCKING_DISABLED_KEY);
  if (stored === undefined) return undefined;
  const until = parseDisabledUntil(stored.value);
  return until !== undefined && until > now().getTime() ? until : undefined;
}

export interface WatchBlockingStateOptions {
  /** How often to read the Store. @default 1000 */
  intervalMs?: number;
  /** Ends the watch; the returned promise then resolves. */
  signal: AbortSignal;
  /**
   * Called with the first state read, then whenever it changes: a new
   * disable, an enable, or a disable running out (undefined), so consumers
   * rebuild without a timer of their own.
   */
  onChange: (disabledUntil: number | undefined) => void;
  logger: Logger;
  /** @default () => new Date() */
  now?: () => Date;
}

/** Log a run of read failures on its first failure and then every this many. */
const FAILURE_LOG_EVERY = 60;

/**
 * Polls the Store for blocking.disabledUntil until the signal aborts and
 * reports changes through onChange. While blocking is off it also wakes at
 * the moment the disable ends, so expiry is reported on time, not up to an
 * interval late. Never rejects: store errors are logged and retried at the
 * next interval (the last state stays in force), a throwing onChange is logged.
 */
export async function watchBlockingState(
  store: RuntimeStore,
  opts: WatchBlockingStateOptions,
): Promise<void> {
  const intervalMs = Math.max(1, opts.intervalMs ?? 1000);
  const now = opts.now ?? (() => new Date());
  const log = opts.logger.with({ component: "blocking-state" });
  const { signal } = opts;
  let reported: { until: number | undefined } | undefined;
  let failures = 0;
  let invalidSeen: string | undefined;

  while (!signal.aborted) {
    let wait = intervalMs;
    try {
      const stored = await store.getRuntime(BLOCKING_DISABLED_KEY);
      if (failures > 0) {
        log.info("Reading the blocking state again", { failures });
        failures = 0;
      }
      if (signal.aborted) break;
      let until = stored && parseDisabledUntil(stored.value);
      if (stored !== undefined && until === undefined) {
        if (stored.value !== invalidSeen) {
          log.warn(
            "Ignoring blocking.disabledUntil: not an ISO 8601 time; blocking stays on (kudurru blocking enable clears it)",
            { value: stored.value },
          );
        }
        invalidSeen = stored.value;
      }
      const nowMs = now().getTime();
      if (until !== undefined && until <= nowMs) until = undefined;
      // +1: wake just after the end, not a hair before it.
      if (until !== undefined) wait = Math.min(wait, until - nowMs + 1);
      if (reported === undefined || reported.until !== until) {
        reported = { until };
        notify(until);
      }
    } catch (err) {
      failures++;
      if (failures === 1 || failures % FAILURE_LOG_EVERY === 0) {
        log.warn(
          "Cannot read the blocking state; keeping the last one and retrying",
          { error: err, failures },
        );
      }
    }
    await pause(wait, signal);
  }

  function notify(until: number | undefined): void {
    try {
      opts.onChange(until);
    } catch (err) {
      log.error("A blocking state consumer failed", { error: err });
    }
  }
}
