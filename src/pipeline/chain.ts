/**
 * The one place that puts stages in order (blocky's lesson: one builder, a
 * comment at each stage saying why it sits there). Order is code, not config.
 */
import { RCODE } from "../dns/wire/mod.ts";
import type { Logger } from "../log/logger.ts";
import type { Request } from "./request.ts";
import { answer, type Response } from "./response.ts";
import { type Next, type Stage, STAGE_ORDER, type StageName } from "./stage.ts";
import type { StageCounters } from "./stage_counters.ts";

/**
 * Why each stage sits where it does. Read top to bottom as the path of a
 * query; `log` is listed last but wraps everything (see buildChain).
 */
export const STAGE_PLACEMENT: Record<StageName, string> = {
  ingress:
    "first: drops, FORMERR, BADVERS, NOTIMP and the CHAOS/health answers need nothing but the message, and nothing later should see a malformed query",
  identify:
    "before any decision that depends on who asks: control, blocking and upstream choice read the client's groups",
  control:
    "right after identify: a refused or dropped client gets no answer at all, not even a local or authoritative one",
  local:
    "before authoritative: special-use names (localhost, invalid, onion, RFC 6303 reverse zones) are answered here unless a configured zone covers them",
  authoritative:
    "before blocking: our own zones are answered as configured and cannot be blocked by a list; forward zones only set the upstream group here",
  blocking:
    "recursive path only, so after authoritative; before the cache so a block is never hidden by a cached answer",
  rewrite: "after blocking (a blocked name is not rewritten), before the cache",
  cache:
    "after everything that depends on the client (blocking, rewrites), before the upstream it saves a trip to",
  dnssec: "between cache and upstream: only validated data enters the cache",
  upstream:
    "last real resolver: anything still unanswered is forwarded to a group",
  postprocess:
    "after the upstream answered: rebinding protection and filtering of its answer",
  log:
    "outermost: it must observe every final answer, including ingress's and a failed stage's SERVFAIL, so it wraps the chain instead of sitting at its end",
};

/**
 * The end of the chain: no stage answered. The standard chain never gets
 * here (the upstream stage answers everything that reaches it); a chain
 * built without one (tests, benchmarks) answers REFUSED, status `refused`,
 * from `chain`.
 */
function endOfChain(req: Request): Response {
  return answer(req, "chain", "refused", RCODE.REFUSED);
}

export interface ChainOptions {
  logger: Logger;
  counters?: StageCounters;
  /**
   * Link only the stages from this one on, without `log`: the rest of the
   * chain that a continued query runs (chain_continuation.ts).
   */
  from?: StageName;
}

/**
 * Sorts `stages` into the fixed order and links them. Each stage is guarded
 * once: if it throws, the chain logs one line (stage, qname, qtype), counts
 * it, and answers SERVFAIL with status `servfail` in its place, so the
 * stages before it (and `log`) see an ordinary answer.
 *
 * @throws {Error} when two stages share a name
 */
export function buildChain(stages: readonly Stage[], opts: ChainOptions): Next {
  const byName = new Map<StageName, Stage>();
  for (const stage of stages) {
    if (byName.has(stage.name)) {
      throw new Error(
        `Cannot build the stage chain: stage "${stage.name}" given twice`,
      );
    }
    byName.set(stage.name, stage);
  }
  // `log` goes first in the run order: outermost wrapper, sees every answer.
  const runOrder: StageName[] = opts.from === undefined
    ? ["log", ...STAGE_ORDER.filter((n) => n !== "log")]
    : STAGE_ORDER.slice(STAGE_ORDER.indexOf(opts.from)).filter((n) =>
      n !== "log"
    );
  let next: Next = endOfChain;
  for (const name of runOrder.toReversed()) {
    const stage = byName.get(name);
    if (stage !== undefined) next = guard(stage, next, opts);
  }
  return next;
}

/**
 * Wraps `stage` so nothing it throws or rejects with escapes. A stage that
 * answers synchronously stays synchronous: no promise is made per stage
 * unless the stage itself returns one (most answers never wait on I/O).
 */
function guard(stage: Stage, next: Next, opts: ChainOptions): Next {
  const failed = (req: Request, error: unknown): Response => {
    opts.logger.error("Stage failed; answering SERVFAIL", {
      stage: stage.name,
      qname: req.query.question?.name,
      qtype: req.query.question?.type,
      error,
    });
    opts.counters?.countStageError(stage.name);
    return answer(req, stage.name, "servfail", RCODE.SERVFAIL);
  };
  return (req) => {
    let res: Promise<Response> | Response;
    try {
      res = stage.serve(req, next);
    } catch (error) {
      return failed(req, error);
    }
    return res instanceof Promise
      ? res.catch((error: unknown) => failed(req, error))
      : res;
  };
}
