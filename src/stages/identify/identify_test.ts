import assert from "node:assert/strict";
import type { Request } from "../../pipeline/mod.ts";
import { requestFor } from "../../pipeline/testing/mod.ts";
import { createIdentifyStage } from "./mod.ts";

Deno.test("identify puts every client in the default group", async () => {
  let seen: Request | undefined;
  await createIdentifyStage().serve(requestFor("example.org. A"), (req) => {
    seen = req;
    return { drop: true, status: "dropped", stage: "chain" };
  });
  assert.deepEqual(seen?.groups, ["default"]);
});
