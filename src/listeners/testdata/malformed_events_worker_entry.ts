/**
 * A listener worker whose handler drains query events of the wrong shape
 * (a count its arrays do not hold), so a test can see the main thread
 * ignore them instead of passing them on or throwing.
 */
import { runListenerWorker } from "../listener_worker.ts";
import { testDataPlane } from "./test_handler.ts";

runListenerWorker((opts) =>
  testDataPlane(opts, {
    events: {
      drain: () => ({
        events: {
          table: 0,
          stringBase: 0,
          count: 2,
          strings: ["a.test."],
          times: new Float64Array(1),
          ints: new Int32Array(0),
        },
        dropped: 0,
      }),
      restartStrings() {},
      recycle() {},
    },
  })
);
