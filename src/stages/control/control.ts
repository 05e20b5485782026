/**
 * The control stage (docs/design.md#stage-order): the place for Policy and
 * global rules that allow, refuse or drop a query before anything answers
 * it. No rule exists yet, so it passes every query on.
 */
import type { Request } from "../../pipeline/request.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";

/** Creates the control stage. */
export function createControlStage(): Stage {
  return {
    name: "control",
    serve(req: Request, next: Next) {
      // Seam: with Policies in the snapshot this checks, in order,
      // allowedNetworks (outside → refuse or drop per policy), refuse ANY
      // (RFC 8482), and blocked qtypes; a drop returns drop("control"), a
      // refusal answer(req, "control", "refused", RCODE.REFUSED).
      return next(req);
    },
  };
}
