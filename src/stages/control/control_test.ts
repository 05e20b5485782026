import assert from "node:assert/strict";
import type { Response } from "../../pipeline/mod.ts";
import { requestFor } from "../../pipeline/testing/mod.ts";
import { createControlStage } from "./mod.ts";

Deno.test("control passes every query on", async () => {
  const passed: Response = { drop: true, status: "dropped", stage: "chain" };
  const res = await createControlStage().serve(
    requestFor("example.org. ANY"),
    () => passed,
  );
  assert.equal(res, passed);
});
