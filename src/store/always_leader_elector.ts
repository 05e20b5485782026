/**
 * The elector of single-node drivers (memory, sqlite): the node is always the
 * leader, so leader-only loops simply run until their signal aborts.
 */
import type { Elector } from "./store.ts";

/** The hostname, or "local" when it cannot be read (no --allow-sys=hostname). */
export function defaultNodeName(): string {
  try {
    return Deno.hostname() || "local";
  } catch {
    return "local";
  }
}

export function alwaysLeaderElector(node: string): Elector {
  return {
    async run(signal, onStarted, onStopped) {
      if (signal.aborted) return;
      // Listen before onStarted runs: if onStarted itself aborts the signal
      // (or stops its owner), the abort event has already fired by the time
      // a listener added afterwards would wait for it, and run never ends.
      const aborted = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
      onStarted();
      await aborted;
      onStopped();
    },
    isLeader: () => true,
    leader: () => node,
  };
}
