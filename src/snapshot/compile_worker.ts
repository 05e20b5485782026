/**
 * The Worker that compiles block lists, and counts the rules of downloaded
 * bodies for the list fetcher, so a list of millions of rules does not
 * stall the main thread (the ops and metrics servers, the query-log
 * writer) for seconds. One job at a time (compile_workers.ts). `deno
 * compile` must include this file (`--include
 * src/snapshot/compile_worker.ts`): it is only named by URL.
 */
import {
  type CompileJob,
  type CountJob,
  runCompileJob,
  runCountJob,
} from "./list_compile_job.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<CompileJob | CountJob>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => {
  const job = event.data;
  scope.postMessage("count" in job ? runCountJob(job) : runCompileJob(job));
};
