/**
 * Finds a loopback port free for both UDP and TCP, on 127.0.0.1 and (when
 * the machine has it) ::1, by letting the kernel pick one for a TCP socket
 * and checking the rest on the same number.
 */

/** True when ::1 can be bound here (containers sometimes lack IPv6). */
export function hasIpv6Loopback(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Ports this process handed out lately: the kernel may pick a port again
 * as soon as the probe closes, and a config asking for several ports at
 * once (DNS, ops, metrics…) got the same one twice ("port … is also taken
 * by listeners.ops.address", seen in a benchmark run).
 */
const recent: number[] = [];
const RECENT_PORTS = 256;

/**
 * A port number free on loopback for UDP and TCP at the time of the call,
 * and not one of the last 256 this process handed out.
 */
export function freePort(): number {
  const ipv6 = hasIpv6Loopback();
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    const held: { close(): void }[] = [probe];
    if (recent.includes(port)) {
      probe.close();
      continue;
    }
    try {
      held.push(
        Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port }),
      );
      if (ipv6) {
        held.push(Deno.listen({ hostname: "::1", port }));
        held.push(
          Deno.listenDatagram({ transport: "udp", hostname: "::1", port }),
        );
      }
      recent.push(port);
      if (recent.length > RECENT_PORTS) recent.shift();
      return port;
    } catch {
      // Taken on another transport or family: try another number.
    } finally {
      for (const socket of held) socket.close();
    }
  }
  throw new Error("Cannot find a free loopback port after 50 attempts");
}
