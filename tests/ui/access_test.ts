/**
 * The settings and access pages in a real browser against a real
 * `kudurru serve` started with one key set by the environment
 * (KUDURRU_CACHE__MAXTTL), so that key must show read-only.
 */
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { apiUp, HOME_ZONE, PASSWORD, scenario } from "./harness.ts";

Deno.test({
  name:
    "ui: settings (an environment key read-only, a change saved, the blocking switch) and access (a viewer token used once shown, a user and a binding, their audit diff, sessions, a password reset, a user deleted)",
  async fn() {
    await using server = await startKudurru({
      objects: HOME_ZONE,
      readyZone: "home.test.",
      upstreamPort: freePort(),
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD, KUDURRU_CACHE__MAXTTL: "12h" },
    });
    await apiUp(server);
    const env = {
      KUDURRU_URL: server.apiUrl,
      KUDURRU_DNS_PORT: String(server.port),
      KUDURRU_PASSWORD: PASSWORD,
    };
    await scenario("access_settings", env);
    await scenario("access_people", env);
    await scenario("access_users", env);
  },
});
