/**
 * A tiny QueryHandler for the listener tests, so socket behaviour can be
 * tested without the stage chain. It answers by query name:
 *
 * - `slow-<ms>.test.`: waits that long, then answers A 192.0.2.1; dropped
 *   (null) when the client is `overloaded`, as the upstream stage does
 * - `hold-<n>.test.`: waits until `releaseHeld()`, then answers A
 *   192.0.2.1; dropped (null) when the client is `overloaded`
 * - `drop.test.`: no answer (null)
 * - `snapshot.test.`: TXT with the current snapshot's version, or "none"
 * - `client.test.`: TXT with the client's address as the listener gave it
 * - `big.test.`: TXT of ~60,000 octets (fills socket buffers quickly)
 * - `crash.test.`: no answer, and an uncaught error ends the worker
 * - anything else: A 192.0.2.1
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import type { ClientInfo, QueryHandler } from "../../pipeline/handler.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import type { Logger } from "../../log/logger.ts";
import type { DataPlane } from "../../pipeline/data_plane.ts";
import {
  createStageCounters,
  type StageCounters,
} from "../../pipeline/stage_counters.ts";

export interface TestHandler extends QueryHandler {
  /** Counts queries by transport, like the real pipeline. */
  readonly counters: StageCounters;
  /** Clients seen, in arrival order. */
  readonly clients: ClientInfo[];
  /** Answers every `hold-<n>.test.` query waiting now. */
  releaseHeld(): void;
}

export function createTestHandler(
  _opts: { logger: Logger; nodeName?: string; version?: string },
): TestHandler {
  let snapshot: Snapshot | null = null;
  const counters = createStageCounters();
  const clients: ClientInfo[] = [];
  let held: (() => void)[] = [];
  return {
    clients,
    releaseHeld() {
      const waiting = held;
      held = [];
      for (const release of waiting) release();
    },
    setSnapshot(s) {
      snapshot = s;
    },
    counters,
    handle(query, client) {
      clients.push(client);
      counters.countQuery(client.transport);
      const q = dnsPacket.decode(Buffer.from(query));
      const name: string = q.questions?.[0]?.name ?? "";
      if (name === "crash.test") {
        // Outside the listener's own error handling, as a bug would be.
        setTimeout(() => {
          throw new Error("crash.test asked");
        });
        return null;
      }
      // Like the real pipeline: answers that wait come as a promise, the
      // rest synchronously.
      const slow = /^slow-(\d+)\.test$/.exec(name);
      if (name === "client.test") {
        return reply(q, { type: "TXT", name, ttl: 0, data: client.address });
      }
      if (/^hold-\d+\.test$/.test(name)) {
        if (client.overloaded) return null;
        return new Promise((resolve) =>
          held.push(() => resolve(answerTo(q, name, snapshot)))
        );
      }
      if (!slow) return answerTo(q, name, snapshot);
      if (client.overloaded) return null;
      // Reads the query again after the wait, as a pipeline may: a listener
      // that reused the query's buffer meanwhile would answer the wrong one.
      return new Promise((resolve) =>
        setTimeout(() => {
          const again = dnsPacket.decode(Buffer.from(query));
          resolve(answerTo(again, again.questions?.[0]?.name ?? "", snapshot));
        }, Number(slow[1]))
      );
    },
  };
}

/** 240 strings of 250 octets: a ~60 KB answer, under the 65,535 a TCP frame holds. */
const BIG_TXT = Array.from({ length: 240 }, () => "x".repeat(250));

function answerTo(
  q: dnsPacket.Packet,
  name: string,
  snapshot: Snapshot | null,
): Uint8Array | null {
  if (name === "drop.test") return null;
  const answer: dnsPacket.Answer = name === "snapshot.test"
    ? { type: "TXT", name, ttl: 0, data: String(snapshot?.version ?? "none") }
    : name === "big.test"
    ? { type: "TXT", name, ttl: 0, data: BIG_TXT }
    : { type: "A", name, ttl: 60, data: "192.0.2.1" };
  return reply(q, answer);
}

function reply(q: dnsPacket.Packet, answer: dnsPacket.Answer): Uint8Array {
  return new Uint8Array(dnsPacket.encode({
    id: q.id ?? 0,
    type: "response",
    flags: dnsPacket.RECURSION_DESIRED,
    questions: q.questions ?? [],
    answers: [answer],
  }));
}

/** The test handler as a worker's data plane, with `parts` (cache, events) added. */
export function testDataPlane(
  opts: { logger: Logger },
  parts: Pick<DataPlane, "cache" | "events"> = {},
): DataPlane {
  const handler = createTestHandler(opts);
  return {
    handler,
    counters: handler.counters,
    ...parts,
    enterLameduck() {},
  };
}
