/**
 * kudurru as the resolver benchmarks start it: every upstream pointed at one
 * loopback port, and a local readiness zone answered without any upstream,
 * so start-up does not depend on the upstream being up (or answering).
 */
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";

/** The readiness zone: answered locally. */
export const KUDURRU_READY_ZONE = LOCAL_READY_ZONE;

/** Starts kudurru forwarding to 127.0.0.1:`upstreamPort`. */
export function startKudurruResolver(
  upstreamPort: number,
  opts: { queryLog?: boolean; ffiSockets?: number } = {},
): ReturnType<typeof startKudurru> {
  return startKudurru({
    objects: [localReadyZoneObject()],
    readyZone: KUDURRU_READY_ZONE,
    upstreamPort,
    ...(opts.queryLog === false &&
      { extraConfig: { querylog: { enabled: false } } }),
    ...(opts.ffiSockets && { ffiSockets: opts.ffiSockets }),
  });
}
