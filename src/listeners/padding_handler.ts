/**
 * The handler of an encrypted listener (DoT, DoH, DoQ): answers padded
 * when the query asks (EDNS(0) Padding, RFC 7830 §3; src/dns/wire/
 * edns_padding.ts). Plain UDP and TCP are left alone: padding protects
 * nothing there, and their hot path pays nothing for it.
 */
import type { QueryHandler } from "../pipeline/handler.ts";
import { asksForPadding, padAnswer } from "../dns/wire/edns_padding.ts";

const pad = (answer: Uint8Array | null) =>
  answer === null ? null : padAnswer(answer);

export function paddingHandler(inner: QueryHandler): QueryHandler {
  return {
    setSnapshot: (snapshot) => inner.setSnapshot(snapshot),
    handle(query, client) {
      // Read before the inner handler: `query` may be a receive buffer.
      const padded = asksForPadding(query);
      const answer = inner.handle(query, client);
      if (!padded) return answer;
      return answer instanceof Promise ? answer.then(pad) : pad(answer);
    },
  };
}
