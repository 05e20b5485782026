/**
 * The control stage (seed §7.1 step 4): Policy and global rules that allow,
 * refuse or drop a query before anything answers it. It passes everything
 * for now.
 */
import type { Next, Request, Stage } from "../../pipeline/mod.ts";

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
