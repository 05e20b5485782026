/**
 * The web UI in a real browser (Debian's Chromium through Playwright)
 * against a real `kudurru serve`: the first start, the dashboard and the
 * live query log (harness.ts runs the scenarios).
 */
import assert from "node:assert/strict";
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import {
  answeringUpstream,
  apiUp,
  HOME_ZONE,
  PASSWORD,
  scenarioOn,
} from "./harness.ts";

Deno.test({
  name:
    "ui: first start: log in with the printed password, change it, see the dashboard",
  async fn() {
    await using server = await startKudurru({
      objects: HOME_ZONE,
      readyZone: "home.test.",
      upstreamPort: freePort(),
    });
    const password = await apiUp(server);
    assert.ok(password, `no printed password in:\n${server.output()}`);
    await scenarioOn("first_run", server, password!);
  },
});

Deno.test({
  name:
    "ui: the dashboard says what the API says, a dig shows live in the query log, a phone scrolls no sideways; every page passes axe-core",
  async fn() {
    await using server = await startKudurru({
      objects: HOME_ZONE,
      readyZone: "home.test.",
      upstreamPort: freePort(),
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await apiUp(server);
    await scenarioOn("dashboard_and_log", server, PASSWORD);
    await scenarioOn("every_page", server, PASSWORD);
  },
});

Deno.test("ui: blocking a name from its query-log row blocks it, undo resolves it again; the client's page", async () => {
  await using upstream = answeringUpstream();
  await using server = await startKudurru({
    objects: HOME_ZONE,
    readyZone: "home.test.",
    upstreamPort: upstream.port,
    env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
  });
  await apiUp(server);
  await scenarioOn("quick_block", server, PASSWORD);
});
