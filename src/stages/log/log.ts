/**
 * The log stage (docs/design.md#stage-order): counts every query and every
 * final answer. It is the outermost wrapper of the chain (see chain.ts), so it
 * sees ingress's answers and the SERVFAIL of a stage that threw too. It leaves
 * the time the chain took in `req.elapsedMs`, for the query log
 * (query_events.ts, fed by the handler's `onAnswered`).
 */
import type { Request } from "../../pipeline/request.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import type { StageCounters } from "../../pipeline/stage_counters.ts";

/** Creates the log stage, counting into `counters` (shared with the handler). */
export function createLogStage(counters: StageCounters): Stage {
  return {
    name: "log",
    serve(req: Request, next: Next) {
      const started = performance.now();
      counters.countQuery(req.client.transport, req.query.question?.type);
      // Synchronous answers (memo hits, ingress) stay synchronous: no
      // promise per query unless a later stage waits on something.
      const res = next(req);
      if (!(res instanceof Promise)) {
        req.elapsedMs = performance.now() - started;
        counters.countResponse(res, req.elapsedMs * 1000);
        return res;
      }
      return res.then((settled) => {
        req.elapsedMs = performance.now() - started;
        counters.countResponse(settled, req.elapsedMs * 1000);
        return settled;
      });
    },
  };
}
