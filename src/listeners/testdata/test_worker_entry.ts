/** The listener worker with the test handler instead of the stage chain. */
import { runListenerWorker } from "../listener_worker.ts";
import { testDataPlane } from "./test_handler.ts";

runListenerWorker((opts) => testDataPlane(opts));
