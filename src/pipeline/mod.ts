/**
 * The query pipeline: the Stage contract, Request and Response, the Status
 * taxonomy, the chain builder and the QueryHandler listeners call.
 */
export {
  type ClientInfo,
  type QueryHandler,
  type Transport,
} from "./handler.ts";
export type { Snapshot } from "./snapshot.ts";
export { zoneIndexOf } from "./snapshot_zones.ts";
export type {
  BlockingSnapshot,
  BlockResponse,
  ClientGroupData,
  PolicyData,
  PolicyDecision,
} from "./blocking_snapshot.ts";
export { type Next, type Stage, STAGE_ORDER, type StageName } from "./stage.ts";
export type { MalformedReason, NodeIdentity, Request } from "./request.ts";
export {
  answer,
  type AnswerSections,
  type AnswerSource,
  drop,
  overloaded,
  replyTo,
  type Response,
} from "./response.ts";
export { type Status, STATUSES } from "./status.ts";
export { buildChain, type ChainOptions, STAGE_PLACEMENT } from "./chain.ts";
export {
  answerSizeLimit,
  encodeAnswer,
  finalizeSpec,
  OUR_UDP_PAYLOAD_SIZE,
} from "./answer_encoding.ts";
export {
  type CounterBatch,
  createStageCounters,
  type RcodeLabel,
  type StageCounters,
} from "./stage_counters.ts";
export { buildRequest } from "./request_builder.ts";
export {
  continuationThrough,
  type ContinueChain,
  type ContinuedAnswer,
  MAX_CONTINUATIONS,
} from "./chain_continuation.ts";
export {
  createQueryHandler,
  type PipelineQueryHandler,
  type QueryHandlerOptions,
} from "./query_handler.ts";
