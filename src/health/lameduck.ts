/**
 * Lameduck (docs/design.md#health-and-lameduck): on SIGTERM readiness turns 503
 * at once, so Kubernetes, dnsdist and other load balancers take the node out of
 * rotation, while the DNS listeners keep answering for a grace period; only
 * then does the server stop (and the listeners drain their in-flight queries as
 * usual).
 */
import type { Logger } from "../log/logger.ts";
import type { Health } from "./health.ts";

/** How long DNS keeps answering after readiness turned 503. */
export const LAMEDUCK_GRACE_MS = 5_000;

export interface LameduckOptions {
  health: Health;
  logger: Logger;
  /** @default LAMEDUCK_GRACE_MS */
  graceMs?: number;
  /** Ends the grace period early (a second signal: stop now). */
  signal?: AbortSignal;
}

/**
 * Enters lameduck and resolves when the grace period is over (or `signal`
 * aborts). Never rejects.
 */
export async function enterLameduck(opts: LameduckOptions): Promise<void> {
  const graceMs = opts.graceMs ?? LAMEDUCK_GRACE_MS;
  opts.health.setLameduck();
  opts.logger.info(
    "Lameduck: readiness and the DNS health check fail, other queries are answered until the grace period ends",
    {
      seconds: graceMs / 1000,
    },
  );
  if (graceMs <= 0 || opts.signal?.aborted) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
    onAbort = () => resolve();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
  clearTimeout(timer);
  if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
}
