/**
 * A black-holed upstream under load: kudurru's UDP listener waits on as many
 * answers as it keeps (1,000), and must still answer what needs no wait.
 * Before, every query past the bound was dropped, cache hits included.
 */
import assert from "node:assert/strict";
import { query, queryMessage } from "../../src/testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import {
  answer,
  startUdpUpstream,
} from "../../src/upstream/testdata/scripted_upstream.ts";

/**
 * Twice the listener's bound (UDP_MAX_IN_FLIGHT), at ~5,000 a second: the
 * bound is reached within ~0.2 s, long before the first times out (2 s).
 */
const STUCK_QUERIES = 2_500;

Deno.test("kudurru answers cache hits while a silent upstream holds every place for waiting queries", async () => {
  // Answers cached.test. only; every other name is a black hole.
  const upstream = startUdpUpstream((q) =>
    q.question?.name.toLowerCase() === "cached.test."
      ? [{ message: answer(q, { a: ["192.0.2.7"], ttl: 3600 }) }]
      : []
  );
  try {
    await using kudurru = await startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: upstream.port,
    });
    const warm = await query(kudurru.port, "cached.test.", "A");
    assert.deepEqual(warm.answers.map((r) => r.data), ["192.0.2.7"]);

    // Names never seen, paced so the kernel's socket buffer keeps up: each
    // waits on the silent upstream for the group's 2 s timeout.
    const flood = Deno.listenDatagram({
      transport: "udp",
      hostname: "127.0.0.1",
      port: 0,
    });
    try {
      const to: Deno.NetAddr = {
        transport: "udp",
        hostname: "127.0.0.1",
        port: kudurru.port,
      };
      for (let i = 0; i < STUCK_QUERIES; i++) {
        await flood.send(queryMessage(`n${i}.stuck.test.`, "A", { id: i }), to);
        if (i % 25 === 24) await new Promise((r) => setTimeout(r, 5));
      }
      const hit = await query(kudurru.port, "cached.test.", "A", {
        timeoutMs: 1_000,
      });
      assert.equal(hit.rcode, "NOERROR");
      assert.deepEqual(hit.answers.map((r) => r.data), ["192.0.2.7"]);
    } finally {
      flood.close();
    }
  } finally {
    await upstream.close();
  }
});
