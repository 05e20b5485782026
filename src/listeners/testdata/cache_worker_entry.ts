/**
 * A listener worker whose pipeline is the real cache stage in front of a
 * scripted upstream: every name is answered with a TXT record naming this
 * worker instance, so a test can tell a cached answer from a fresh one
 * after a restart, or one another worker stored. Names under `cut.` come
 * marked as cut for their client (`wholeWire`), as the upstream stage
 * marks a TC=1 answer. Names under `slow.` are answered after 60 s (an
 * upstream slower than the listener's stop); a name under `crash.` ends
 * the worker with an uncaught error.
 */
import { createLogger } from "../../log/logger.ts";
import { createQueryHandler } from "../../pipeline/query_handler.ts";
import type { Stage } from "../../pipeline/stage.ts";
import { createCacheStage } from "../../stages/cache/cache.ts";
import { forwarded } from "../../stages/cache/testdata/answers.ts";
import { runListenerWorker } from "../listener_worker.ts";

const INSTANCE = crypto.randomUUID().replaceAll("-", "");

runListenerWorker(() => {
  const cache = createCacheStage();
  const upstream: Stage = {
    name: "upstream",
    serve(req) {
      if (req.qname.startsWith("crash.")) {
        // Outside the pipeline's own error handling, as a bug would be.
        setTimeout(() => {
          throw new Error("crash asked");
        });
      }
      if (req.qname.startsWith("slow.")) {
        return new Promise((resolve) =>
          setTimeout(
            () =>
              resolve(
                forwarded(req, { answer: [`${req.qname} 300 IN TXT slow`] }),
              ),
            60_000,
          )
        );
      }
      const res = forwarded(req, {
        answer: [`${req.qname} 300 IN TXT ${INSTANCE}`],
      });
      if (req.qname.startsWith("cut.") && res.wire !== undefined) {
        res.wholeWire = res.wire;
      }
      return res;
    },
  };
  const handler = createQueryHandler({
    logger: createLogger(),
    stages: [cache, upstream],
  });
  return {
    handler,
    counters: handler.counters,
    cache,
    enterLameduck: handler.enterLameduck,
  };
});
