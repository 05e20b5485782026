/**
 * The two resolvers as this bench starts them: both forward everything to
 * the loopback upstream and serve plain DNS (for the readiness probe and
 * the UDP cache warm-up), DoT and DoH with the same certificate.
 *
 * kudurru is started once with every encrypted listener asked for; when it
 * refuses to start with its DoH listener (a build without one), it is
 * started again without it and DoH is reported as skipped with the reason,
 * so the DoT figures are still taken.
 */
import { freePort } from "../../src/testing/free_port.ts";
import type { RunningServer } from "../../src/testing/server_process.ts";
import { startUnbound } from "../../tests/resolver/unbound.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { DOH_PATH, type EncryptedTransport } from "./probe.ts";

/** The resolvers compared. */
export const SERVERS = ["kudurru", "unbound"] as const;
export type ServerName = typeof SERVERS[number];

/** The bench certificate: PEM files for kudurru, PEM texts for Unbound. */
export interface BenchTls {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/** A resolver started with its encrypted ports, and what it cannot serve. */
export interface EncryptedServer {
  running: RunningServer;
  ports: Partial<Record<EncryptedTransport, number>>;
  /** Transports asked for that this server does not serve, with why. */
  skipped: Partial<Record<EncryptedTransport, string>>;
}

/** How to start a resolver. */
export interface StartOptions {
  upstreamPort: number;
  /** Unbound's readiness question: the zone the upstream serves. */
  readyZone: string;
  tls: BenchTls;
  transports: readonly EncryptedTransport[];
  /** kudurru only: false runs it with `querylog.enabled: false`. */
  queryLog: boolean;
}

/** Starts `server` serving every transport in `opts.transports` it can. */
export async function startEncrypted(
  server: ServerName,
  opts: StartOptions,
): Promise<EncryptedServer> {
  return server === "unbound"
    ? await startUnboundEncrypted(opts)
    : await startKudurruEncrypted(opts);
}

async function startUnboundEncrypted(
  opts: StartOptions,
): Promise<EncryptedServer> {
  // One thread (tests/resolver/unbound.ts), as kudurru's DoT listener is
  // one worker: the comparison is one core's worth of each.
  const running = await startUnbound(opts.upstreamPort, opts.readyZone, {
    tls: { cert: opts.tls.cert, key: opts.tls.key },
    https: opts.transports.includes("doh"),
  });
  return {
    running,
    ports: {
      ...(running.tlsPort !== undefined && { dot: running.tlsPort }),
      ...(running.httpsPort !== undefined && { doh: running.httpsPort }),
    },
    skipped: {},
  };
}

async function startKudurruEncrypted(
  opts: StartOptions,
): Promise<EncryptedServer> {
  const tls = { certFile: opts.tls.certFile, keyFile: opts.tls.keyFile };
  const dotPort = freePort();
  const dot = [{ address: `127.0.0.1:${dotPort}`, tls }];
  // As ../resolver/kudurru_resolver.ts starts it, plus the listeners.
  const start = (listeners: Record<string, unknown>) =>
    startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: opts.upstreamPort,
      listeners,
      ...(!opts.queryLog && { extraConfig: { querylog: { enabled: false } } }),
    });
  if (!opts.transports.includes("doh")) {
    return {
      running: await start({ dot }),
      ports: { dot: dotPort },
      skipped: {},
    };
  }
  const dohPort = freePort();
  const doh = [{ address: `127.0.0.1:${dohPort}`, path: DOH_PATH, tls }];
  try {
    return {
      running: await start({ dot, doh }),
      ports: { dot: dotPort, doh: dohPort },
      skipped: {},
    };
  } catch (error) {
    const reason = startFailure((error as Error).message);
    return {
      running: await start({ dot }),
      ports: { dot: dotPort },
      skipped: { doh: `kudurru did not start with a doh listener: ${reason}` },
    };
  }
}

/**
 * The line of a failed start that says why: the first log line naming
 * DoH or an error, else the message's first line (the whole output is
 * kudurru's start-up log, too long for a table).
 */
export function startFailure(message: string): string {
  const lines = message.split("\n").map((l) => l.trim()).filter((l) =>
    l !== ""
  );
  const why = lines.find((l) => /doh/i.test(l)) ??
    lines.find((l) => /error|cannot|refus/i.test(l)) ?? lines[0] ?? "";
  return why.length > 300 ? why.slice(0, 300) + "…" : why;
}
