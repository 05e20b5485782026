/**
 * Links stages into the chain in the fixed order of STAGE_ORDER, whatever
 * order they are given in: order is code, not config. Why each stage sits
 * where it does is said where the standard chain is built
 * (src/stages/data_plane.ts).
 */
import { RCODE } from "../dns/wire/constants.ts";
import type { Logger } from "../log/logger.ts";
import type { Request } from "./request.ts";
import { answer, type Response } from "./response.ts";
import { type Next, type Stage, STAGE_ORDER, type StageName } from "./stage.ts";
import type { StageCounters } from "./stage_counters.ts";

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
