/**
 * The Worker that compiles block lists, so a list of millions of rules does
 * not stall the main thread (the ops and metrics servers, the query-log
 * writer) for seconds. `deno compile` must include this file
 * (`--include src/snapshot/compile_worker.ts`): it is only named by URL.
 */
import { type CompileJob, runCompileJob } from "./list_compile_job.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<CompileJob>) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => scope.postMessage(runCompileJob(event.data));
