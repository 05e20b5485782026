/**
 * A listener worker for the metrics tests: the real ingress, cache and
 * upstream stages (the upstream a scripted server the test runs), a
 * blocking stand-in that blocks *.blocked.test. by the list "test/ads",
 * and a log stage that counts the qtype and the duration, as
 * src/stages/log/log.ts will once it passes them to the counters.
 */
import { runListenerWorker } from "../../listeners/listener_worker.ts";
import { RCODE } from "../../dns/wire/constants.ts";
import { createQueryHandler } from "../../pipeline/query_handler.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import type { Stage } from "../../pipeline/stage.ts";
import {
  createStageCounters,
  type StageCounters,
} from "../../pipeline/stage_counters.ts";
import { createCacheStage } from "../../stages/cache/cache.ts";
import { createIngressStage } from "../../stages/ingress/ingress.ts";
import { createUpstreamStage } from "../../stages/upstream/upstream.ts";
import { createResolver } from "../../upstream/resolver.ts";

/** The log stage with qtype and duration (see the module comment). */
function countingLogStage(counters: StageCounters): Stage {
  return {
    name: "log",
    serve(req, next) {
      const started = performance.now();
      counters.countQuery(req.client.transport, req.query.question?.type);
      const count = (res: Response) => {
        counters.countResponse(res, (performance.now() - started) * 1000);
        return res;
      };
      const res = next(req);
      return res instanceof Promise ? res.then(count) : count(res);
    },
  };
}

const blocking: Stage = {
  name: "blocking",
  serve(req, next) {
    if (!req.qname.endsWith(".blocked.test.")) return next(req);
    return {
      ...answer(req, "blocking", "blocked_list", RCODE.NXDOMAIN),
      list: "test/ads",
    };
  },
};

runListenerWorker(({ logger }) => {
  const counters = createStageCounters();
  const cache = createCacheStage();
  const handler = createQueryHandler({
    logger,
    counters,
    stages: [
      createIngressStage(),
      blocking,
      cache,
      createUpstreamStage({
        resolver: (settings) => createResolver(settings, { logger }),
        logger,
      }),
      countingLogStage(counters),
    ],
  });
  return { handler, counters, cache, enterLameduck: handler.enterLameduck };
});
