/** The log stage and the query events of a worker; see README.md. */
export { createLogStage } from "./log.ts";
export {
  createQueryEventBuffer,
  type QueryEventBatch,
  type QueryEventBuffer,
} from "./query_events.ts";
export { summarizeAnswer } from "./answer_summary.ts";
