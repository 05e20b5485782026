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

/** A port number free on loopback for UDP and TCP at the time of the call. */
export function freePort(): number {
  const ipv6 = hasIpv6Loopback();
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    const held: { close(): void }[] = [probe];
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
      return port;
    } catch {
      // Taken on another transport or family: try another number.
    } finally {
      for (const socket of held) socket.close();
    }
  }
  throw new Error("Cannot find a free loopback port after 50 attempts");
}
