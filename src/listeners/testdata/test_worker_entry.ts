/** The listener worker with the test handler instead of the stage chain. */
import { runListenerWorker } from "../listener_worker.ts";
import { createTestHandler } from "./test_handler.ts";

runListenerWorker(createTestHandler);
