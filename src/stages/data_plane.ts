/**
 * The data plane of one listener worker, built in one place: the stage
 * chain in the order a query runs through it, with why each stage sits
 * where it does (docs/design.md#stage-order), and the controls the worker
 * drives (cache, query events, rate limiter, lameduck). The worker entry
 * in src/listeners/ builds it; tests and benchmarks may too.
 */
import { prepareTransfers } from "./authoritative/zone_transfer.ts";
import { zoneIndexOf } from "../pipeline/snapshot_zones.ts";
import type { Logger } from "../log/logger.ts";
import { buildChain } from "../pipeline/chain.ts";
import {
  continuationThrough,
  type ContinueChain,
} from "../pipeline/chain_continuation.ts";
import type { DataPlane, ExplainedQuestion } from "../pipeline/data_plane.ts";
import { CLASS } from "../dns/wire/constants.ts";
import { encodeQueryMessage } from "../dns/wire/query_message.ts";
import { explanationOf } from "./explanation.ts";
import type { Explanation } from "../pipeline/explanation.ts";
import {
  createQueryHandler,
  type PipelineQueryHandler,
} from "../pipeline/query_handler.ts";
import type { Next, Stage } from "../pipeline/stage.ts";
import {
  createStageCounters,
  type StageCounters,
} from "../pipeline/stage_counters.ts";
import { createResolver } from "../upstream/resolver.ts";
import {
  type AuthoritativeOptions,
  createAuthoritativeStage,
} from "./authoritative/authoritative.ts";
import { createBlockingStage } from "./blocking/blocking.ts";
import { createCacheStage } from "./cache/cache.ts";
import type { CacheStage } from "./cache/cache_stage.ts";
import { createControlStage } from "./control/control.ts";
import { createIdentifyStage } from "./identify/identify.ts";
import { createIngressStage, type IngressStage } from "./ingress/ingress.ts";
import { createLocalStage } from "./local/local.ts";
import { createLogStage } from "./log/log.ts";
import {
  createQueryEventBuffer,
  type QueryEventBuffer,
} from "./log/query_events.ts";
import { ptrLookupThrough } from "./ptr_lookup.ts";
import { upstreamCacheScope } from "./upstream/cache_scope.ts";
import {
  createUpstreamStage,
  type UpstreamStage,
} from "./upstream/upstream.ts";

/** What the standard stages need from outside. */
export interface StandardStagesOptions {
  /** Counted into by the log stage. */
  counters: StageCounters;
  /** For the stages' few log lines (a failing upstream group, once per 30 s). */
  logger: Logger;
  authoritative?: AuthoritativeOptions;
  /** The cache stage to use. @default createStandardCacheStage() */
  cache?: CacheStage;
  /** How identify learns a client's host name. @default none: hostname entries never match */
  resolvePtr?: (address: string) => Promise<string | null>;
  /** How upstream continues a chain by its target's route. @default none: the chain is answered cut */
  continueChain?: ContinueChain;
}

/**
 * The cache stage as the standard chain uses it: conditional forwarding
 * bypasses it, and answers are kept per Policy upstream group and per ECS
 * option sent (upstream/cache_scope.ts).
 */
export function createStandardCacheStage(): CacheStage {
  return createCacheStage({ scope: upstreamCacheScope });
}

/** Every stage of the standard chain, in the order a query meets them. */
export function standardStages(opts: StandardStagesOptions): Stage[] {
  const { logger } = opts;
  return [
    // log: outermost, so it sees every final answer, ingress's and a
    // failed stage's SERVFAIL included, and times the whole chain.
    createLogStage(opts.counters),
    // ingress: drops, FORMERR, BADVERS, NOTIMP, the UDP rate limit and the
    // CHAOS and health answers need only the message; no later stage may
    // see a malformed query.
    createIngressStage(),
    // identify: every later decision that depends on who asks (control,
    // blocking, the upstream group) reads the client's groups and policy.
    createIdentifyStage({
      logger,
      ...(opts.resolvePtr && { resolvePtr: opts.resolvePtr }),
    }),
    // control: right after identify, so a refused client gets nothing, not
    // even a local or authoritative answer.
    createControlStage(),
    // local: special-use names (localhost, invalid, onion, RFC 6303 reverse
    // zones) are answered here unless a configured zone covers them.
    createLocalStage(),
    // authoritative: our zones answer as configured, before any list can
    // block them; forward zones only pick the upstream group here.
    createAuthoritativeStage(opts.authoritative ?? {}),
    // blocking: on the recursive path only, and before the cache, so a
    // cached answer never hides a block.
    createBlockingStage({ logger }),
    // cache: after everything that depends on the client, before the
    // upstream it saves a trip to.
    opts.cache ?? createStandardCacheStage(),
    // upstream: the last resolver; anything still unanswered goes to a
    // group. Its resolver is built from the snapshot's settings, inside the
    // worker, and rebuilt only when they change.
    createUpstreamStage({
      resolver: (settings) => createResolver(settings, { logger }),
      logger,
      ...(opts.continueChain && { continueChain: opts.continueChain }),
    }),
  ];
}

export interface StandardDataPlaneOptions {
  logger: Logger;
  /** @default "kudurru" (until a snapshot names the node) */
  nodeName?: string;
  /** @default the version in deno.json */
  version?: string;
  /** @default fresh counters */
  counters?: StageCounters;
  /** Record a QueryEvent per answer. @default true */
  queryLog?: boolean;
  authoritative?: AuthoritativeOptions;
  /** A NOTIFY for a secondary zone was taken (AuthoritativeOptions.onNotify). */
  onNotify?: (zone: string, from: string) => void;
}

/** The standard data plane, with what tests and benchmarks read besides. */
export interface StandardDataPlane extends DataPlane {
  readonly handler: PipelineQueryHandler;
  readonly counters: StageCounters;
  readonly cache: CacheStage;
  readonly events?: QueryEventBuffer;
  drainRateLimitEvictions(): number;
  explain(question: ExplainedQuestion, client: string): Promise<Explanation>;
  /** Closes the upstream connections it opened. */
  close(): Promise<void>;
}

/** The query a stub resolver would send for `question` (RD, EDNS, no DO). */
function explainedQuery(question: ExplainedQuestion): Uint8Array {
  return encodeQueryMessage({
    id: 0,
    question: { name: question.name, type: question.type, class: CLASS.IN },
    rd: true,
    cd: false,
    edns: { udpSize: 1232, dnssecOk: false, options: [] },
  });
}

/** Builds one worker's data plane: every standard stage, one set of counters. */
export function createDataPlane(
  opts: StandardDataPlaneOptions,
): StandardDataPlane {
  const counters = opts.counters ?? createStageCounters();
  const cache = createStandardCacheStage();
  // Host names of clients come from PTR queries through this very handler,
  // and chains are continued through its stages from `local` on.
  const built: { handler?: PipelineQueryHandler; rest?: Next } = {};
  const stages = standardStages({
    counters,
    logger: opts.logger,
    cache,
    resolvePtr: ptrLookupThrough(() => built.handler),
    continueChain: continuationThrough(() => built.rest),
    authoritative: {
      ...opts.authoritative,
      ...(opts.onNotify && { onNotify: opts.onNotify }),
    },
  });
  const events = opts.queryLog === false ? undefined : createQueryEventBuffer();
  const pipeline = createQueryHandler({
    logger: opts.logger,
    stages,
    counters,
    ...(events && { onAnswered: events.record }),
    ...(opts.nodeName !== undefined && { nodeName: opts.nodeName }),
    ...(opts.version !== undefined && { version: opts.version }),
  });
  built.handler = pipeline;
  built.rest = buildChain(stages, {
    logger: opts.logger,
    counters,
    from: "local",
  });
  const ingress = stages.find((s) => s.name === "ingress") as IngressStage;
  const upstream = stages.find((s) => s.name === "upstream") as UpstreamStage;
  const handler: PipelineQueryHandler = {
    ...pipeline,
    // The cache's bounds apply from the snapshot on, before any query: to
    // entries from a dump or another worker too.
    setSnapshot(snapshot) {
      pipeline.setSnapshot(snapshot);
      cache.applySettings(snapshot.settings?.cache);
    },
  };
  return {
    handler,
    counters,
    prepareTransfers: (snapshot) => prepareTransfers(zoneIndexOf(snapshot)),
    cache,
    ...(events && { events }),
    drainRateLimitEvictions: () => ingress.drainRateLimitCounters().evicted,
    enterLameduck: () => pipeline.enterLameduck(),
    explain: async (question, client) =>
      explanationOf(
        await pipeline.explain(explainedQuery(question), {
          address: client,
          port: 0,
          // Over TCP: the UDP rate limit is not spent, and the answer is
          // never cut.
          transport: "tcp",
        }),
        client,
      ),
    close: () => upstream.close(),
  };
}
