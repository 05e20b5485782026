/**
 * The module every Do53 listener Worker runs (docs/design.md#threads): the
 * data-plane wiring place. Each worker builds its own data plane (the
 * standard stage chain, one pipeline instance per worker, with its own
 * counters) and hands it to the listener runtime. `deno compile` must
 * include this file (`--include src/listeners/worker_entry.ts`): it is only
 * named by URL.
 */
import { createDataPlane } from "../stages/data_plane.ts";
import { runListenerWorker } from "./listener_worker.ts";

runListenerWorker(createDataPlane);
