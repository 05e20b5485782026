/**
 * A listener worker that records one query event per drain, named after
 * how many of its earlier batches went into arrays the main thread handed
 * back: `drain-<n>.reused-<k>.test.`. A test releases each batch it gets
 * and sees `k` grow.
 */
import { QueryEventPacker } from "../../pipeline/query_event_pack.ts";
import { runListenerWorker } from "../listener_worker.ts";
import { testDataPlane } from "./test_handler.ts";
import { testQueryEvent } from "./test_event.ts";

const packer = new QueryEventPacker();
/** The times buffers handed back so far. */
const returned = new WeakSet<ArrayBufferLike>();
let drains = 0;
let reused = 0;

runListenerWorker((opts) =>
  testDataPlane(opts, {
    events: {
      drain() {
        drains++;
        packer.add(testQueryEvent(`drain-${drains}.reused-${reused}.test.`));
        const events = packer.take();
        if (returned.has(events.times.buffer)) reused++;
        return { events, dropped: 0 };
      },
      restartStrings: () => packer.restartTable(),
      recycle(times: Float64Array, ints: Int32Array) {
        returned.add(times.buffer);
        packer.recycle(times, ints);
      },
    },
  })
);
