/**
 * How the identify stage learns a client's host name: a PTR query for the
 * client's address, answered by this worker's own pipeline, so local zones,
 * reverse zones and conditional forwarding of in-addr.arpa to the router
 * all apply exactly as they do for any client. Rare (once per client per
 * hour, in the background), so dns-packet's slow path is fine here.
 */
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { ptrName } from "../blocking/policy/ptr_name.ts";
import type { ClientInfo, QueryHandler } from "../pipeline/handler.ts";

/** The parts of dns-packet's (untyped) decoded message read here. */
interface DecodedAnswer {
  rcode?: string;
  answers?: { type: string; data: unknown }[];
}

/** Longer than an upstream group's 2 s default timeout. */
const PTR_TIMEOUT_MS = 3_000;

/**
 * Self-queries come from loopback over TCP: never rate limited, never
 * truncated. Port 0 marks them in the query log.
 */
const SELF: ClientInfo = { address: "127.0.0.1", port: 0, transport: "tcp" };

/**
 * A `resolvePtr` for the identify stage that asks `handler()` (the
 * handler being built: it exists by the time a query needs a name).
 * Resolves to the first PTR target without its trailing dot, or null.
 */
export function ptrLookupThrough(
  handler: () => QueryHandler | undefined,
): (address: string) => Promise<string | null> {
  return async (address) => {
    const self = handler();
    if (self === undefined) return null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const query = new Uint8Array(dnsPacket.encode({
        type: "query",
        id: Math.floor(Math.random() * 65536),
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ name: ptrName(address), type: "PTR", class: "IN" }],
      }));
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), PTR_TIMEOUT_MS);
      });
      const reply = await Promise.race([self.handle(query, SELF), timeout]);
      if (reply === null) return null;
      const answer = dnsPacket.decode(Buffer.from(reply)) as DecodedAnswer;
      if (answer.rcode !== "NOERROR") return null;
      const ptr = answer.answers?.find((r) => r.type === "PTR");
      return typeof ptr?.data === "string" && ptr.data !== ""
        ? ptr.data.replace(/\.$/, "").toLowerCase()
        : null;
    } catch {
      return null; // a malformed answer: no name, retried later
    } finally {
      clearTimeout(timer);
    }
  };
}
