/**
 * A listener worker whose pipeline is the real cache stage in front of a
 * scripted upstream, for cache_share_workers_test.ts. Every answer is four
 * TXT records (about 600 octets: whole for an EDNS client, TC=1 without
 * EDNS) that start with this worker instance's name, so a test can tell
 * which worker's upstream an answer came from. Names under
 * `failing.example.org.` live 1 s and are answered once per worker; after
 * that their upstream fails (SERVFAIL).
 */
import { RCODE } from "../../../dns/wire/constants.ts";
import { runListenerWorker } from "../../../listeners/listener_worker.ts";
import { createLogger } from "../../../log/logger.ts";
import { createQueryHandler } from "../../../pipeline/query_handler.ts";
import type { Stage } from "../../../pipeline/stage.ts";
import { createCacheStage } from "../cache.ts";
import { forwarded } from "./answers.ts";

const INSTANCE = crypto.randomUUID().replaceAll("-", "");

runListenerWorker(() => {
  const cache = createCacheStage();
  const asked = new Set<string>();
  const upstream: Stage = {
    name: "upstream",
    serve(req) {
      const failing = req.qname.endsWith(".failing.example.org.");
      if (failing && asked.has(req.qname)) {
        return forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream");
      }
      asked.add(req.qname);
      const ttl = failing ? 1 : 300;
      return forwarded(req, {
        answer: [0, 1, 2, 3].map((i) =>
          `${req.qname} ${ttl} IN TXT "${INSTANCE}${i}${"v".repeat(110)}"`
        ),
      });
    },
  };
  const handler = createQueryHandler({
    logger: createLogger(),
    stages: [cache, upstream],
  });
  return {
    handler: {
      ...handler,
      setSnapshot(snapshot) {
        handler.setSnapshot(snapshot);
        cache.applySettings(snapshot.settings?.cache);
      },
    },
    counters: handler.counters,
    cache,
    enterLameduck: handler.enterLameduck,
  };
});
