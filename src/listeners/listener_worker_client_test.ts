import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { startListenerWorker } from "./listener_worker_client.ts";
import {
  answerRecords,
  buildQuery,
  udpExchange,
} from "../testing/dns_client.ts";

const TEST_WORKER = new URL("./testdata/test_worker_entry.ts", import.meta.url);

Deno.test("startListenerWorker with a snapshot answers from it from the first query on", async () => {
  const snapshot: Snapshot = {
    version: 42,
    builtAt: new Date(0).toISOString(),
    node: { name: "test", version: "0.0.0-test" },
    zones: [],
    forwardZones: [],
  };
  const worker = await startListenerWorker({
    workerUrl: TEST_WORKER.href,
    configured: "127.0.0.1:0",
    logger: memoryLogger(),
    stopTimeoutMs: 2_000,
    snapshot,
    start: {
      type: "start",
      listener: { address: "127.0.0.1", port: 0, transport: "udp" },
      nodeName: "test",
      version: "0.0.0-test",
      tcp: { idleTimeoutMs: 1_000, maxConnections: 10 },
    },
  });
  try {
    const reply = await udpExchange(
      "127.0.0.1",
      worker.bound.port,
      buildQuery(1, "snapshot.test", "TXT"),
      2_000,
    );
    assert.deepEqual(answerRecords(reply).records, ["TXT 42"]);
  } finally {
    await worker.stop();
  }
});
