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
      onStarted();
      await new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
      onStopped();
    },
    isLeader: () => true,
    leader: () => node,
  };
}
