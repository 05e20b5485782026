/**
 * A listener worker whose first batch of query events never reaches the
 * main thread (as if its post had failed unnoticed), so a test can see the
 * main thread count the next batch as dropped, ask for a new string table
 * and read the batches after it. Each drain records one event named after
 * it: `drain-<n>.test.`.
 */
import { QueryEventPacker } from "../../pipeline/query_event_pack.ts";
import { runListenerWorker } from "../listener_worker.ts";
import { createTestHandler } from "./test_handler.ts";

const packer = new QueryEventPacker();
let drains = 0;

function record(qname: string) {
  packer.add({
    time: Date.now(),
    node: "test",
    clientAddress: "127.0.0.1",
    clientPort: 5300,
    transport: "udp",
    groups: [],
    qname,
    qtype: 1,
    qclass: 1,
    rcode: 0,
    status: "authoritative",
    stage: "authoritative",
    dnssecOk: false,
    authenticData: false,
    answer: "A 192.0.2.1",
    responseSize: 45,
    durationUs: 10,
  });
}

runListenerWorker((opts) =>
  Object.assign(createTestHandler(opts), {
    drainEvents() {
      drains++;
      if (drains === 1) {
        record("lost.test.");
        packer.take(); // lost on the way
      }
      record(`drain-${drains}.test.`);
      return { events: packer.take(), dropped: 0 };
    },
    restartEventStrings: () => packer.restartTable(),
  })
);
