/**
 * The blocking stage (docs/design.md#stage-order): applies the client's
 * PolicyDecision to the question, then to the CNAME targets and addresses of
 * the answer that comes back. The logic is in blocking_stage.ts; this file
 * wires in the real list matcher. See README.md.
 */
import { openCompiledList } from "../../blocking/matcher/open.ts";
import {
  type BlockingStage,
  type BlockingStageOptions,
  createBlockingStageWith,
} from "./blocking_stage.ts";

export type { BlockingStage, BlockingStageOptions };

/** Creates the blocking stage; lists are opened with `openCompiledList` unless `openList` is given. */
export function createBlockingStage(
  opts: BlockingStageOptions = {},
): BlockingStage {
  const { openList, ...rest } = opts;
  return createBlockingStageWith(openList ?? openCompiledList, rest);
}
