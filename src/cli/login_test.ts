/**
 * `kudurru login`, `context` and `api` against a real `kudurru serve`: a
 * login with the password on standard input keeps a working token and
 * nothing else, a wrong password writes no context, and the token is
 * never printed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { apiCommand } from "./api.ts";
import {
  bufferIO,
  type Command,
  type CommandIO,
  UsageError,
} from "./command.ts";
import { contextCommand } from "./context.ts";
import { readContexts } from "./contexts.ts";
import { loginCommand } from "./login.ts";
import { freePort } from "../testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
  waitForApi,
} from "../testing/kudurru_server.ts";

const PASSWORD = "correct horse battery staple";

/** Runs `command` the way runCli does: a thrown error is exit 1 (2 for usage), its message on stderr. */
async function run(
  command: Command,
  args: string[],
  opts: { stdin?: string; env: Record<string, string> },
) {
  const b = bufferIO(opts.stdin ?? "", opts.env);
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

/** The token with its last character changed (to another one, always). */
function tampered(token: string): string {
  return token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
}

Deno.test({
  name:
    "login with the password on stdin keeps a working token; a wrong password writes nothing; list hides the token; api exits 1 on an error",
  async fn() {
    await using server = await startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
      nodeName: "cli-node",
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await waitForApi(server.apiUrl);
    const config = await Deno.makeTempDir({ prefix: "kudurru-cli-config-" });
    try {
      const env = { XDG_CONFIG_HOME: config };
      const path = join(config, "kudurru", "contexts.yaml");
      const login = ["--server", `${server.apiUrl}/`, "--username", "admin"];

      const wrong = await run(loginCommand, login, {
        stdin: "not the password\n",
        env,
      });
      assert.equal(wrong.code, 1);
      assert.match(
        wrong.stderr,
        /^kudurru login: Wrong user name or password: check them and try again\n$/,
      );
      await assert.rejects(Deno.stat(path), Deno.errors.NotFound);

      const ok = await run(loginCommand, [...login, "--name", "lab"], {
        stdin: `${PASSWORD}\n`,
        env,
      });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(
        ok.stdout,
        `Logged in to ${server.apiUrl} as admin; context "lab" is current (kept in ${path}).\n`,
      );
      const file = await readContexts(path);
      assert.equal(file.current, "lab");
      assert.equal(file.contexts.length, 1);
      const context = file.contexts[0]!;
      assert.equal(context.server, server.apiUrl);
      assert.match(context.token, /^kdr_[a-z0-9]+_\S+$/);
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
      assert.ok(!(await Deno.readTextFile(path)).includes(PASSWORD));

      // The token works: the node answers, and the token is the CLI's own.
      const node = await run(apiCommand, ["GET", "/api/v1/node"], { env });
      assert.equal(node.code, 0, node.stderr);
      assert.equal(JSON.parse(node.stdout).data.name, "cli-node");
      assert.match(node.stdout, /^\{\n {2}"data": \{\n/);
      const tokens = await run(apiCommand, ["get", "/api/v1/tokens"], { env });
      assert.equal(tokens.code, 0, tokens.stderr);
      const items = JSON.parse(tokens.stdout).data.items as {
        description: string;
      }[];
      assert.deepEqual(
        items.map((t) => t.description),
        [`kudurru CLI on ${Deno.hostname()}`],
      );

      const list = await run(contextCommand, ["list"], { env });
      assert.equal(list.code, 0);
      assert.equal(
        list.stdout,
        `CURRENT  NAME  SERVER\n*        lab   ${server.apiUrl}\n`,
      );

      const missing = await run(apiCommand, ["GET", "/api/v1/nosuch"], {
        env,
      });
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, "");
      assert.match(missing.stderr, /^kudurru api: .*\(404 not_found\)/);

      // A token made elsewhere, on standard input, makes a second context.
      const again = await run(loginCommand, [
        "--server",
        server.apiUrl,
        "--token-file",
        "-",
        "--name",
        "again",
      ], { stdin: `${context.token}\n`, env });
      assert.equal(again.code, 0, again.stderr);
      const bad = await run(loginCommand, [
        "--server",
        server.apiUrl,
        "--token-file",
        "-",
        "--name",
        "bad",
      ], { stdin: tampered(context.token) + "\n", env });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /does not accept the token/);
      const use = await run(contextCommand, ["use", "lab"], { env });
      assert.equal(use.code, 0);
      const deleted = await run(contextCommand, ["delete", "again"], { env });
      assert.equal(deleted.code, 0);
      const after = await readContexts(path);
      assert.equal(after.current, "lab");
      assert.deepEqual(after.contexts.map((c) => c.name), ["lab"]);
      for (
        const out of [ok, node, tokens, list, missing, again, bad, use, deleted]
      ) {
        assert.ok(!out.stdout.includes(context.token), out.stdout);
        assert.ok(!out.stderr.includes(context.token), out.stderr);
      }
    } finally {
      await Deno.remove(config, { recursive: true });
    }
  },
});
