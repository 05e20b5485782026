/**
 * Finds a loopback port free for both UDP and TCP, on 127.0.0.1 and (when
 * the machine has it) ::1.
 *
 * Test modules run in parallel, and a peer server binds its port a few
 * hundred milliseconds after the probe here closes. Two things could take
 * the port in that gap, and both made CI fail ("cannot bind address
 * 127.0.0.1@35885 UDP (address already in use)"):
 * - the kernel, giving it to another test's client socket: so ports come
 *   from outside the kernel's ephemeral range, never from port 0;
 * - another test module's freePort: so each port handed out is reserved
 *   for a while by a file in a directory all test processes share.
 */
import { join } from "node:path";

/** True when ::1 can be bound here (containers sometimes lack IPv6). */
export function hasIpv6Loopback(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

/** How long a handed-out port stays reserved across test modules. */
const RESERVATION_MS = 10 * 60_000;
const RESERVATIONS = join(
  Deno.env.get("TMPDIR") ?? "/tmp",
  "kudurru-test-ports",
);
/** Ports this isolate handed out, for when the directory is not writable. */
const handedOut = new Set<number>();

/**
 * Linux's default ephemeral range is 32768-60999, and macOS's and Windows'
 * 49152-65535, so these are never a kernel-chosen client port. (Deno can
 * read /proc/sys only with --allow-all, so the range is not looked up.)
 */
export const PORT_RANGE = { from: 10_000, to: 32_768 } as const;

/**
 * A port number free on loopback for UDP and TCP at the time of the call,
 * in PORT_RANGE, and not handed out by any test process in the last ten
 * minutes.
 */
export function freePort(): number {
  const span = PORT_RANGE.to - PORT_RANGE.from;
  return freePortFrom(PORT_RANGE.from + Math.floor(Math.random() * span));
}

/** The first port from `first` on (wrapping in PORT_RANGE) freePort may give. */
export function freePortFrom(first: number): number {
  const ipv6 = hasIpv6Loopback();
  const span = PORT_RANGE.to - PORT_RANGE.from;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + (first - PORT_RANGE.from + attempt) % span;
    if (handedOut.has(port) || !bindsEverywhere(port, ipv6)) continue;
    if (!reserve(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(
    `Cannot find a free loopback port from ${first} in 200 tries`,
  );
}

function bindsEverywhere(port: number, ipv6: boolean): boolean {
  const held: { close(): void }[] = [];
  try {
    held.push(Deno.listen({ hostname: "127.0.0.1", port }));
    held.push(
      Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port }),
    );
    if (ipv6) {
      held.push(Deno.listen({ hostname: "::1", port }));
      held.push(
        Deno.listenDatagram({ transport: "udp", hostname: "::1", port }),
      );
    }
    return true;
  } catch {
    return false; // Taken on some transport or family.
  } finally {
    for (const socket of held) socket.close();
  }
}

/**
 * Claims `port` for every test process by creating its file; a file older
 * than the reservation time is a stale claim and is taken over. When the
 * directory cannot be written, the in-isolate set alone has to do.
 */
function reserve(port: number): boolean {
  const file = join(RESERVATIONS, String(port));
  try {
    Deno.mkdirSync(RESERVATIONS, { recursive: true });
    Deno.writeTextFileSync(file, "", { createNew: true });
    return true;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) return true;
  }
  try {
    const age = Date.now() - (Deno.statSync(file).mtime?.getTime() ?? 0);
    if (age < RESERVATION_MS) return false;
    Deno.writeTextFileSync(file, "");
    return true;
  } catch {
    return false;
  }
}
