/**
 * The blocking stage's logic with the list opener
 * injected; blocking.ts wires in the real matcher. See README.md for the
 * order of the decisions.
 */
import { CLASS } from "../../dns/wire/constants.ts";
import type { Logger } from "../../log/logger.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import type { Status } from "../../pipeline/status.ts";
import { inspectAnswerRRSets } from "./answer_message.ts";
import { inspectAnswerWire } from "./answer_wire.ts";
import { blockedAnswer } from "./blocked_answer.ts";
import { ALLOW_ONLY_RULE, blockReason } from "./block_reason.ts";
import { allowedBy, firstBlock, type ListHit } from "./list_checks.ts";
import {
  type ListProblem,
  type OpenList,
  PolicyLists,
  type ResolvedPolicy,
} from "./policy_lists.ts";

export interface BlockingStageOptions {
  /** Milliseconds since the epoch, for `disabledUntil`. @default Date.now */
  now?: () => number;
  /** Opens a compiled list in this thread. @default openCompiledList */
  openList?: OpenList;
  /** Where a list that cannot be opened, or a failed check, is reported. @default nowhere */
  logger?: Logger;
}

/** The blocking stage, with what it could not do counted. */
export interface BlockingStage extends Stage {
  /** Lists that failed to open and checks that threw (each then blocks nothing). */
  errors(): number;
}

/** Statuses whose answers came from outside and are inspected. */
const INSPECTED: ReadonlySet<Status> = new Set<Status>([
  "forwarded",
  "cached",
  "cached_stale",
]);

/** The question checks found nothing: look at the answer. */
const PASS = 0;

/** Creates the stage with `openList` (required here; blocking.ts defaults it). */
export function createBlockingStageWith(
  openList: OpenList,
  opts: Omit<BlockingStageOptions, "openList"> = {},
): BlockingStage {
  const now = opts.now ?? Date.now;
  const logger = opts.logger;
  let errors = 0;
  function problem(what: string, fields: Record<string, unknown>): void {
    errors++;
    logger?.warn(what, fields);
  }
  const lists = new PolicyLists(
    openList,
    (p: ListProblem) =>
      problem("block list cannot be opened; it blocks nothing", {
        list: p.key,
        error: p.error,
      }),
  );

  /** The resolved policy for `req`, or undefined when blocking does not apply. */
  function applicablePolicy(req: Request): ResolvedPolicy | undefined {
    const blocking = req.snapshot?.blocking;
    const decision = req.policy;
    if (blocking === undefined || decision === undefined) return undefined;
    if (blocking.enabled !== true) return undefined;
    const until = blocking.disabledUntil;
    if (until !== undefined && until > now()) return undefined;
    // QCLASS ANY asks for the IN data too (ingress lets it through).
    const qclass = req.query.question?.class;
    if (qclass !== CLASS.IN && qclass !== CLASS.ANY) return undefined;
    return lists.resolve(blocking, decision);
  }

  /**
   * What allowed the question (an allow list or an `@@` exception: the
   * answer is not inspected), a block of it, or PASS (look at the answer).
   */
  function judgeQuestion(
    req: Request,
    policy: ResolvedPolicy,
  ): typeof PASS | ListHit | Response {
    const name = req.qname;
    const allowed = allowedBy(policy, name);
    if (allowed !== undefined) return allowed;
    const { decision } = policy;
    if (decision.allowOnly === true) {
      const key = decision.policies?.[0] ?? "allowOnly";
      return blockedAnswer(req, {
        ...policy.response,
        list: key,
        rule: ALLOW_ONLY_RULE,
        reason: blockReason(key, ALLOW_ONLY_RULE),
      });
    }
    const hit = firstBlock(policy, name);
    if (hit === undefined) return PASS;
    // An `@@` exception allowlists the name: no answer inspection either.
    return hit.allows ? hit : listBlock(req, policy, hit);
  }

  /**
   * `res`, or the blocked answer when its answer section holds a blocked
   * item, or `res` naming what let an item through.
   */
  function inspect(
    req: Request,
    policy: ResolvedPolicy,
    res: Response,
  ): Response {
    if (!INSPECTED.has(res.status)) return res;
    try {
      const hit = res.wire !== undefined
        ? inspectAnswerWire(res.wire, policy)
        : inspectAnswerRRSets(res.message?.answer, policy);
      if (hit === undefined) return res;
      return hit.allows ? allowedAnswer(res, hit) : listBlock(req, policy, hit);
    } catch (error) {
      problem("answer inspection failed; answer passed", { error });
      return res;
    }
  }

  return {
    name: "blocking",
    errors: () => errors,
    serve(req: Request, next: Next) {
      let policy: ResolvedPolicy | undefined;
      let verdict: typeof PASS | ListHit | Response;
      try {
        policy = applicablePolicy(req);
        if (policy === undefined) return next(req);
        verdict = judgeQuestion(req, policy);
      } catch (error) {
        // A bug or a broken matcher must not take the query down: not blocked.
        problem("blocking check failed; query passed", { error });
        return next(req);
      }
      if (verdict !== PASS && "allows" in verdict) {
        const allowed = verdict;
        const result = next(req);
        return result instanceof Promise
          ? result.then((res) => allowedAnswer(res, allowed))
          : allowedAnswer(result, allowed);
      }
      if (verdict !== PASS) return verdict;
      // Nothing to hold an answer against: skip the inspection.
      if (policy.block.length === 0) return next(req);
      const checked = policy;
      const result = next(req);
      return result instanceof Promise
        ? result.then((res) => inspect(req, checked, res))
        : inspect(req, checked, result);
    },
  };
}

/**
 * `res` naming the list and rule that let it through, so the query log
 * says why (`allowed by <list>: <rule>`); the status stays what it was. A
 * copy: the cache may hold `res` or hand it to other askers. Only answers
 * from outside are named: a failure or a local answer owes nothing to the
 * allow.
 */
function allowedAnswer(res: Response, hit: ListHit): Response {
  if (!INSPECTED.has(res.status) || res.list !== undefined) return res;
  return { ...res, list: hit.list.name, rule: hit.rule };
}

/** The blocked answer for a block list's hit. */
function listBlock(
  req: Request,
  policy: ResolvedPolicy,
  hit: ListHit,
): Response {
  const own = hit.list.response;
  return blockedAnswer(req, {
    mode: own?.mode ?? policy.response.mode,
    customIPs: own !== undefined ? own.customIPs : policy.response.customIPs,
    ttl: policy.response.ttl,
    list: hit.list.name,
    rule: hit.rule,
    reason: blockReason(hit.list.name, hit.rule),
  });
}
