/** The blocking stage; see README.md. */
export {
  type BlockingStage,
  type BlockingStageOptions,
  createBlockingStage,
} from "./blocking.ts";
export {
  BLOCKED_SOA_MNAME,
  BLOCKED_SOA_RNAME,
  DEFAULT_BLOCK_TTL,
} from "./blocked_answer.ts";
