/**
 * GET /api/v1/why over a real standard data plane (in-process): a zone's
 * name is explained with its zone, bad questions are 400s that say why,
 * and without a listener the answer is 503.
 */
import assert from "node:assert/strict";
import { memoryLogger } from "../../log/logger.ts";
import { createDataPlane } from "../../stages/data_plane.ts";
import { snapshotOf } from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import { ADMIN_PASSWORD, apiFixture } from "../testdata/api_fixture.ts";
import { whyRoutes } from "./why_routes.ts";

const HOME = zoneFromText("home.test.", [
  "home.test. 3600 IN SOA ns.home.test. admin.home.test. 5 7200 3600 1209600 300",
  "home.test. 3600 IN NS ns.home.test.",
  "ns.home.test. 3600 IN A 192.168.1.1",
  "nas.home.test. 300 IN A 192.168.1.10",
]);

Deno.test("api why explains a question through the data plane", async (t) => {
  const plane = createDataPlane({ logger: memoryLogger() });
  plane.handler.setSnapshot(snapshotOf([HOME]));
  await using f = await apiFixture({
    extraRoutes: () => [
      whyRoutes({
        explain: (question, client) => plane.explain(question, client),
        clientAddress: () => "198.51.100.4",
      }),
    ],
  });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  try {
    await t.step("a name of a zone: its answer, stage and zone", async () => {
      const why = await client.request(
        "GET",
        "/api/v1/why?name=NAS.home.test&type=a&client=192.168.1.20",
      );
      assert.equal(why.status, 200, JSON.stringify(why.body));
      const data = why.body.data;
      assert.equal(data.name, "nas.home.test.");
      assert.equal(data.type, "A");
      assert.equal(data.client, "192.168.1.20");
      assert.equal(data.stage, "authoritative");
      assert.equal(data.rcode, "NOERROR");
      assert.equal(data.zone, "home.test.");
      assert.match(data.answer, /A 192\.168\.1\.10/);
    });
    await t.step("without a client: the caller's address", async () => {
      const why = await client.request("GET", "/api/v1/why?name=x.home.test");
      assert.equal(why.body.data.client, "198.51.100.4");
      assert.equal(why.body.data.rcode, "NXDOMAIN");
      assert.equal(why.body.data.type, "A");
    });
    await t.step("bad questions say why", async () => {
      for (
        const [query, message] of [
          ["", /name is required/],
          ["name=a..b", /empty label|label/],
          ["name=x.test&type=NOPE", /type "NOPE"/],
          ["name=x.test&client=not-an-ip", /not an IP address/],
        ] as const
      ) {
        const why = await client.request("GET", `/api/v1/why?${query}`);
        assert.equal(why.status, 400, query);
        assert.equal(why.body.error.key, "bad_request");
        assert.match(why.body.error.message, message);
      }
    });
  } finally {
    await plane.close();
  }
});

Deno.test("api why without a listener that can explain is 503", async () => {
  await using f = await apiFixture({
    extraRoutes: () => [
      whyRoutes({
        explain: () => Promise.resolve(undefined),
        clientAddress: () => "198.51.100.4",
      }),
    ],
  });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const why = await client.request("GET", "/api/v1/why?name=x.test");
  assert.equal(why.status, 503);
  assert.equal(why.body.error.key, "unavailable");
});
