/**
 * The log stage (seed §7.1 step 13): counts every query and every final
 * answer. It is the outermost wrapper of the chain (see chain.ts), so it
 * sees ingress's answers and the SERVFAIL of a stage that threw too.
 * The query log (QueryEvent per answer, batched to the main thread) comes
 * with its own issue and will be written here, skipping `unlogged` answers.
 */
import type {
  Next,
  Request,
  Stage,
  StageCounters,
} from "../../pipeline/mod.ts";

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
        counters.countResponse(res, (performance.now() - started) * 1000);
        return res;
      }
      return res.then((settled) => {
        counters.countResponse(settled, (performance.now() - started) * 1000);
        return settled;
      });
    },
  };
}
