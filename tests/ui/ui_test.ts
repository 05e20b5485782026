/**
 * The web UI in a real browser (Debian's Chromium through Playwright)
 * against a real `kudurru serve`: the first start, the dashboard and the
 * live query log (harness.ts runs the scenarios).
 */
import assert from "node:assert/strict";
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { apiUp, HOME_ZONE, PASSWORD, scenario } from "./harness.ts";

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
    await scenario("first_run", {
      KUDURRU_URL: server.apiUrl,
      KUDURRU_DNS_PORT: String(server.port),
      KUDURRU_PASSWORD: password!,
    });
  },
});

Deno.test({
  name:
    "ui: the dashboard says what the API says, a dig shows live in the query log, a phone scrolls no sideways",
  async fn() {
    await using server = await startKudurru({
      objects: HOME_ZONE,
      readyZone: "home.test.",
      upstreamPort: freePort(),
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await apiUp(server);
    await scenario("dashboard_and_log", {
      KUDURRU_URL: server.apiUrl,
      KUDURRU_DNS_PORT: String(server.port),
      KUDURRU_PASSWORD: PASSWORD,
    });
  },
});
