/**
 * Logging in through an identity provider in a real browser: a real
 * provider (oidc-provider, src/auth/oidc/testdata/test_provider.ts) in
 * this process, a real `kudurru serve` configured with it, and Chromium
 * clicking the login page's button and signing in at the provider's form.
 */
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import {
  providerSettings,
  startTestProvider,
} from "../../src/auth/oidc/testdata/test_provider.ts";
import { apiUp, HOME_ZONE, PASSWORD, scenario } from "./harness.ts";

Deno.test({
  name:
    "ui: sign in with the provider's button; a user no binding names is shown why, one who is lands on the dashboard",
  async fn() {
    const apiPort = freePort();
    await using idp = await startTestProvider({
      alice: { preferred_username: "alice", groups: ["staff"] },
      bob: { preferred_username: "bob", groups: ["visitors"] },
    }, { apiOrigin: `http://127.0.0.1:${apiPort}` });
    await using server = await startKudurru({
      objects: HOME_ZONE,
      readyZone: "home.test.",
      upstreamPort: freePort(),
      apiPort,
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
      extraConfig: {
        auth: { identityProviders: [providerSettings(idp.issuer)] },
        rbac: {
          bindings: [{
            role: "viewer",
            subjects: [{ kind: "Group", name: "corp:staff" }],
          }],
        },
      },
    });
    await apiUp(server);
    await scenario("sso_login", {
      KUDURRU_URL: server.apiUrl,
      KUDURRU_DNS_PORT: String(server.port),
      KUDURRU_PASSWORD: PASSWORD,
    });
  },
});
