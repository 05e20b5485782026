/**
 * The identify stage (seed §7.1 step 3): which ClientGroups the client
 * belongs to. Every client is in "default" for now.
 */
import type { Next, Request, Stage } from "../../pipeline/mod.ts";

/** The group that matches every client (seed §7.2). */
export const DEFAULT_GROUP = "default";

/** Creates the identify stage. */
export function createIdentifyStage(): Stage {
  return {
    name: "identify",
    serve(req: Request, next: Next) {
      // Seam: ClientGroups arrive with blocking. Then this becomes exact IP
      // → longest-prefix CIDR → client ID → default, read from a group index
      // in the snapshot, and the matching Policies travel on the Request.
      req.groups = [DEFAULT_GROUP];
      return next(req);
    },
  };
}
