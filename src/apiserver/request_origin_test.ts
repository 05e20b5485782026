import assert from "node:assert/strict";
import { ok } from "./envelope.ts";
import { actorOf } from "./routes/objects.ts";
import { requestOrigin } from "./request_origin.ts";
import { ADMIN_PASSWORD, apiFixture } from "./testdata/api_fixture.ts";

Deno.test("request origin names the caller as the audit rows do, its proof and its address", async () => {
  await using f = await apiFixture({
    extraRoutes: () => [(routes) =>
      routes.define({
        method: "get",
        path: "/api/v1/test/origin",
        guard: { resource: "node", verb: "get" },
        openapi: { responses: {} },
      }, (c) => ok(c, { ...requestOrigin(c), actorOf: actorOf(c) }))],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const bySession = await admin.request("GET", "/api/v1/test/origin");
  assert.deepEqual(bySession.body.data, {
    actor: "admin",
    authorization: "session",
    client: "unknown",
    actorOf: "admin",
  });
  const made = await admin.request("POST", "/api/v1/tokens", {});
  const robot = f.client();
  robot.token = made.body.data.token;
  const byToken = await robot.request("GET", "/api/v1/test/origin");
  assert.equal(byToken.body.data.actor, "admin");
  assert.equal(byToken.body.data.authorization, `token ${made.body.data.id}`);
});
