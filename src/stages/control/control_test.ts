import assert from "node:assert/strict";
import type { Response } from "../../pipeline/response.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { createControlStage } from "./control.ts";

Deno.test("control passes every query on", async () => {
  const passed: Response = { drop: true, status: "dropped", stage: "chain" };
  const res = await createControlStage().serve(
    requestFor("example.org. ANY"),
    () => passed,
  );
  assert.equal(res, passed);
});
