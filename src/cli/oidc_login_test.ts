/**
 * `kudurru login` through an identity provider, end to end: a real
 * `kudurru serve` configured with a real provider (oidc-provider on
 * loopback), the login command in-process with --no-browser, and a
 * browser with a cookie jar that opens the printed URL, signs in and lands
 * on the CLI's loopback callback. Then the context's ID token is what
 * `kudurru api` sends, with the user's roles, and it is renewed with the
 * refresh token once it has expired.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import * as jose from "jose";
import { apiCommand } from "./api.ts";
import {
  bufferIO,
  type Command,
  type CommandIO,
  UsageError,
} from "./command.ts";
import { readContexts, writeContexts } from "./contexts.ts";
import { loginCommand } from "./login.ts";
import { freePort } from "../testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
  waitForApi,
} from "../testing/kudurru_server.ts";
import {
  Browser,
  CLI_CLIENT_ID,
  providerSettings,
  startTestProvider,
} from "../auth/oidc/testdata/test_provider.ts";

/** Runs `command` as runCli does: a thrown error is exit 1 (2 for usage), its message on stderr. */
async function settle(
  command: Command,
  b: ReturnType<typeof bufferIO>,
  args: string[],
) {
  let code: number;
  try {
    code = await command.run(args, b.io as CommandIO);
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    b.io.stderr(`kudurru ${command.name}: ${err.message}\n`);
    code = err instanceof UsageError ? 2 : 1;
  }
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

async function run(
  command: Command,
  args: string[],
  env: Record<string, string>,
) {
  return await settle(command, bufferIO("", env), args);
}

/** The URL the login printed, once it has. */
async function printedUrl(b: ReturnType<typeof bufferIO>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const m = /^ {2}(http:\/\/\S+\/auth\?\S+)$/m.exec(b.stderr());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no URL printed: ${b.stderr()}`);
}

const ZONE = JSON.stringify({
  apiVersion: "kudurru.io/v1alpha1",
  kind: "DNSZone",
  metadata: { name: "home" },
  spec: {
    type: "primary",
    origin: "home.test.",
    soa: { mname: "ns1.home.test.", rname: "admin.home.test." },
    nameservers: ["ns1.home.test."],
  },
});

Deno.test({
  name:
    "login through the provider keeps its ID token; api sends it with the user's roles; an expired one is renewed, or asks for a login",
  async fn() {
    await using idp = await startTestProvider({
      alice: { preferred_username: "alice", groups: ["staff"] },
    });
    await using server = await startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
      extraConfig: {
        auth: {
          identityProviders: [
            providerSettings(idp.issuer, { cliClientID: CLI_CLIENT_ID }),
          ],
        },
        rbac: {
          bindings: [{
            role: "viewer",
            subjects: [{ kind: "Group", name: "corp:staff" }],
          }],
        },
      },
    });
    await waitForApi(server.apiUrl);
    const config = await Deno.makeTempDir({ prefix: "kudurru-cli-config-" });
    try {
      const env = { XDG_CONFIG_HOME: config };
      const path = join(config, "kudurru", "contexts.yaml");

      // No --provider: the server has exactly one.
      const b = bufferIO("", env);
      const login = settle(loginCommand, b, [
        "--server",
        server.apiUrl,
        "--no-browser",
        "--name",
        "sso",
      ]);
      const url = new URL(await printedUrl(b));
      assert.equal(url.origin, idp.issuer);
      assert.equal(url.searchParams.get("client_id"), CLI_CLIENT_ID);
      assert.equal(url.searchParams.get("code_challenge_method"), "S256");
      assert.ok(url.searchParams.get("state"));
      assert.ok(url.searchParams.get("nonce"));
      const redirect = new URL(url.searchParams.get("redirect_uri")!);
      assert.equal(redirect.hostname, "127.0.0.1");
      assert.equal(redirect.pathname, "/callback");
      assert.notEqual(redirect.port, "");

      const browser = new Browser(() => {
        throw new Error("the browser only talks to the provider and the CLI");
      });
      const toCli = (u: URL) => u.origin === redirect.origin;
      const form = await browser.follow(url.href, toCli);
      const signed = await browser.signIn(
        form.steps.at(-1)!.url,
        "alice",
        toCli,
      );
      assert.ok(signed.next, "the provider sent the browser to the CLI");
      const page = await browser.request(signed.next);
      assert.equal(page.status, 200);
      assert.match(page.body, /You can close this window/);

      const done = await login;
      assert.equal(done.code, 0, done.stderr);
      assert.equal(
        done.stdout,
        `Logged in to ${server.apiUrl} as corp:alice; context "sso" is current (kept in ${path}).\n`,
      );
      const context = (await readContexts(path)).contexts[0]!;
      assert.equal(jose.decodeJwt(context.token).aud, CLI_CLIENT_ID);
      assert.equal(context.oidc?.provider, "corp");
      assert.equal(context.oidc?.clientID, CLI_CLIENT_ID);
      assert.ok(
        context.oidc?.refreshToken,
        "the provider gave a refresh token",
      );
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
      assert.ok(!done.stderr.includes(context.token));

      // A viewer: reads work, a write is refused with what is missing.
      const list = await run(apiCommand, ["GET", "/api/v1/dnszones"], env);
      assert.equal(list.code, 0, list.stderr);
      const status = await run(apiCommand, ["GET", "/api/v1/auth/status"], env);
      assert.equal(JSON.parse(status.stdout).data.user, "corp:alice");
      const write = await run(
        apiCommand,
        ["POST", "/api/v1/dnszones", "-d", ZONE],
        env,
      );
      assert.equal(write.code, 1);
      assert.match(write.stderr, /\(403 forbidden\)/);

      // The ID token has expired: the refresh token renews it.
      const now = Math.floor(Date.now() / 1000);
      const expired = await new jose.SignJWT({
        iss: idp.issuer,
        aud: CLI_CLIENT_ID,
        sub: "alice",
        iat: now - 7200,
        exp: now - 3600,
      }).setProtectedHeader({ alg: "RS256" }).sign(idp.signingKey);
      await writeContexts(path, {
        current: "sso",
        contexts: [{ ...context, token: expired }],
      });
      const renewed = await run(apiCommand, ["GET", "/api/v1/dnszones"], env);
      assert.equal(renewed.code, 0, renewed.stderr);
      const after = (await readContexts(path)).contexts[0]!;
      assert.notEqual(after.token, expired);
      assert.ok(jose.decodeJwt(after.token).exp! > now);
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);

      // Without a refresh token an expired one means logging in again.
      const { refreshToken: _, ...noRefresh } = after.oidc!;
      await writeContexts(path, {
        current: "sso",
        contexts: [{ ...after, token: expired, oidc: noRefresh }],
      });
      const stale = await run(apiCommand, ["GET", "/api/v1/dnszones"], env);
      assert.equal(stale.code, 1);
      assert.match(
        stale.stderr,
        /session expired: run kudurru login --server \S+ --provider corp again/,
      );
    } finally {
      await Deno.remove(config, { recursive: true });
    }
  },
});
