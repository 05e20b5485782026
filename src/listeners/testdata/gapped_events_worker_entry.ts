/**
 * A listener worker whose first batch of query events never reaches the
 * main thread (as if its post had failed unnoticed), so a test can see the
 * main thread count the next batch as dropped, ask for a new string table
 * and read the batches after it. Each drain records one event named after
 * it: `drain-<n>.test.`.
 */
import { QueryEventPacker } from "../../pipeline/query_event_pack.ts";
import { runListenerWorker } from "../listener_worker.ts";
import { testDataPlane } from "./test_handler.ts";
import { testQueryEvent } from "./test_event.ts";

const packer = new QueryEventPacker();
let drains = 0;

function record(qname: string) {
  packer.add(testQueryEvent(qname));
}

runListenerWorker((opts) =>
  testDataPlane(opts, {
    events: {
      drain() {
        drains++;
        if (drains === 1) {
          record("lost.test.");
          packer.take(); // lost on the way
        }
        record(`drain-${drains}.test.`);
        return { events: packer.take(), dropped: 0 };
      },
      restartStrings: () => packer.restartTable(),
      recycle() {},
    },
  })
);
