/** The signals `kudurru serve` listens for while it runs and stops. */
import type { Logger } from "../log/logger.ts";

/**
 * SIGHUP would end the process (Deno's default), losing the query log's
 * last events and the cache dump. There is nothing to reload: objects.d is
 * watched, and kudurru.yaml is read at start. Logged and ignored until
 * disposed.
 */
export function ignoreHangup(logger: Logger): Disposable {
  const onHangup = () =>
    logger.info(
      "SIGHUP ignored: objects.d is watched; a changed kudurru.yaml needs a restart",
    );
  Deno.addSignalListener("SIGHUP", onHangup);
  return {
    [Symbol.dispose]: () => Deno.removeSignalListener("SIGHUP", onHangup),
  };
}

/** Calls `handle` on every SIGTERM and SIGINT until disposed. */
export function onShutdownSignals(
  handle: (signal: Deno.Signal) => void,
): Disposable {
  const signals: Deno.Signal[] = ["SIGTERM", "SIGINT"];
  const listeners = signals.map((signal) => {
    const onSignal = () => handle(signal);
    Deno.addSignalListener(signal, onSignal);
    return [signal, onSignal] as const;
  });
  return {
    [Symbol.dispose]: () => {
      for (const [s, l] of listeners) Deno.removeSignalListener(s, l);
    },
  };
}

/** The next SIGTERM or SIGINT; `cancel()` stops listening without one. */
export function nextShutdownSignal(): {
  promise: Promise<Deno.Signal>;
  cancel(): void;
} {
  const signals: Deno.Signal[] = ["SIGTERM", "SIGINT"];
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  const listeners = signals.map((signal) => {
    const onSignal = () => {
      cancel();
      resolve(signal);
    };
    Deno.addSignalListener(signal, onSignal);
    return [signal, onSignal] as const;
  });
  const cancel = () => {
    for (const [s, l] of listeners) Deno.removeSignalListener(s, l);
  };
  return { promise, cancel };
}
