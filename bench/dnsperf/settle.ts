/**
 * Waits until a server just started is idle before it is measured: kudurru
 * builds its snapshot again once the controller has stamped the zones'
 * serials (~0.4 s of main-thread CPU for the bench zone, seconds for large
 * object sets), and on a pinned run that work would be taken from the
 * listener's first measured seconds.
 */
import { treeCpuSeconds } from "./cpu_time.ts";

/** Idle: under this share of one CPU over a window. */
const IDLE_SHARE = 0.05;
const WINDOW_MS = 1000;
/** Measured anyway after this long (a server busy on its own), by default. */
const MAX_WAIT_MS = 20_000;

/**
 * Resolves once `pid` (and its descendants) used under 5 % of a CPU in a
 * one-second window, or after `maxWaitMs` (20 s); returns how long it
 * waited (ms).
 */
export async function settle(
  pid: number,
  ticks: number,
  maxWaitMs = MAX_WAIT_MS,
): Promise<number> {
  const began = Date.now();
  let before = treeCpuSeconds(pid, ticks);
  while (Date.now() - began < maxWaitMs) {
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const now = treeCpuSeconds(pid, ticks);
    if (now - before < IDLE_SHARE * (WINDOW_MS / 1000)) break;
    before = now;
  }
  return Date.now() - began;
}
