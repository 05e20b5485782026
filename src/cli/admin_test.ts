/**
 * `kudurru admin` on a data directory with no server (state.db changed
 * directly), and through a real control socket served with the real admin
 * actions over a real SQLite store.
 *
 * Deno allows a Unix socket by exact path only, so the socket tests use one
 * data directory, SOCKET_TEST_DIR, whose socket deno.json's test task allows
 * (cache_test.ts has its own); the tests of one file run one after another.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import { createUser, findUser, updateUser } from "../auth/accounts.ts";
import { parseToken } from "../auth/api_token.ts";
import { verifyPassword } from "../auth/password.ts";
import { TokenChecker } from "../auth/tokens.ts";
import { memoryLogger } from "../log/logger.ts";
import {
  type AdminOptions,
  LOCAL_ADMIN_ACTOR,
  storeAdminActions,
} from "../server/admin_actions.ts";
import {
  CONTROL_SOCKET_FILE,
  MAX_CONTROL_BODY,
  startControlSocket,
} from "../server/control_socket.ts";
import { SqliteAuditTable } from "../store/sqlite/sqlite_audit.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import type { Store } from "../store/store.ts";
import { makeAdminCommand, parseExpiry, parseScope } from "./admin.ts";
import { bufferIO, UsageError } from "./command.ts";
import { runCli } from "./run.ts";

/** The data directory of the socket tests (named in deno.json's test task). */
const SOCKET_TEST_DIR = "/tmp/kudurru-admin-test";

const OLD_PASSWORD = "correct-horse-battery";

/** Makes `dir/state.db` with the user "admin" and the service account "ci". */
async function seed(dir: string): Promise<void> {
  await withStore(dir, async (store) => {
    await createUser(store, "admin", OLD_PASSWORD, {
      displayName: "Administrator",
    }, "bootstrap");
    await store.apply({
      apiVersion: API_VERSION,
      kind: "ServiceAccount",
      metadata: { name: "ci" },
      spec: { description: "" },
    }, { manager: "api", actor: "test" });
  });
}

async function withStore<T>(
  dir: string,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openSqliteStore(join(dir, "state.db"));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function adminHash(store: Store): Promise<string> {
  const admin = await findUser(store, "admin");
  assert.ok(admin?.spec?.passwordHash);
  return admin.spec.passwordHash;
}

/** A confirmed TOTP, as enrolment leaves it (never opened in these tests). */
const CONFIRMED_TOTP = { sealedSecret: "v1.x.y.z", enabled: true, lastStep: 7 };

/** Turns TOTP on for "admin" in `store`. */
async function totpOn(store: Store): Promise<void> {
  const user = await findUser(store, "admin");
  assert.ok(user);
  await updateUser(store, user, { totp: CONFIRMED_TOTP }, "test");
}

/** The actors and kinds of state.db's audit rows, oldest first. */
function auditOf(dir: string): string[] {
  const db = new DatabaseSync(join(dir, "state.db"));
  try {
    return new SqliteAuditTable(db).query().items.reverse().map((r) =>
      `${r.actor} ${r.action} ${r.kind}`
    );
  } finally {
    db.close();
  }
}

async function tempDir() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-admin-cli-" });
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Runs `kudurru admin ARGS`; `stdin` undefined: standard input is a terminal. */
async function admin(args: string[], stdin?: string) {
  const out = bufferIO(stdin ?? "");
  const command = makeAdminCommand({
    stdinIsTerminal: () => stdin === undefined,
  });
  const code = await command.run(args, out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

/** A configuration file with auth.tokens.maxLifetime, beside the data. */
async function configFile(dir: string, maxLifetime: string): Promise<string> {
  const path = join(dir, "kudurru.yaml");
  await Deno.writeTextFile(
    path,
    `auth:\n  tokens:\n    maxLifetime: "${maxLifetime}"\n`,
  );
  return path;
}

// ---------------------------------------------------------------------------
// With no server running: state.db is changed directly.

Deno.test("admin reset-password with no server generates a password, prints it once and writes state.db as local-admin", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const got = await admin(["reset-password", "admin", "--data-dir", tmp.dir]);
  assert.equal(got.code, 0, got.stderr);
  const password = got.stdout.trim();
  assert.equal(got.stdout, `${password}\n`, "the password alone on stdout");
  assert.match(password, /^[2-9a-zA-Z]{24}$/);
  assert.match(got.stderr, /no server is running/);
  assert.match(got.stderr, /must be changed at the next login/);
  assert.match(got.stderr, /shown this once/);
  await withStore(tmp.dir, async (store) => {
    const hash = await adminHash(store);
    assert.ok(await verifyPassword(password, hash));
    assert.equal(await verifyPassword(OLD_PASSWORD, hash), false);
    const user = await findUser(store, "admin");
    assert.equal(user!.spec!.mustChangePassword, true);
    assert.ok(user!.spec!.sessionsValidAfter);
  });
  assert.equal(auditOf(tmp.dir).at(-1), `${LOCAL_ADMIN_ACTOR} update User`);
});

Deno.test("admin reset-password --remove-totp with no server removes TOTP in the same local-admin write", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  await withStore(tmp.dir, totpOn);
  const rows = auditOf(tmp.dir).length;
  const got = await admin([
    "reset-password",
    "admin",
    "--remove-totp",
    "--data-dir",
    tmp.dir,
  ]);
  assert.equal(got.code, 0, got.stderr);
  assert.match(got.stdout, /^[2-9a-zA-Z]{24}\n$/);
  assert.match(got.stderr, /no server is running/);
  assert.match(
    got.stderr,
    /Removed the TOTP of "admin": the next login needs no code, and the user may set it up again\./,
  );
  assert.doesNotMatch(got.stderr, /has TOTP on/);
  await withStore(tmp.dir, async (store) => {
    const user = await findUser(store, "admin");
    assert.equal(user!.spec!.totp, undefined);
    assert.ok(await verifyPassword(got.stdout.trim(), await adminHash(store)));
  });
  assert.deepEqual(auditOf(tmp.dir).slice(rows), [
    `${LOCAL_ADMIN_ACTOR} update User`,
  ]);

  // Again, with no TOTP left: said, and nothing else differs.
  const again = await admin([
    "reset-password",
    "admin",
    "--remove-totp",
    "--data-dir",
    tmp.dir,
  ]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /Note: "admin" had no TOTP on to remove\./);
});

Deno.test("admin reset-password without --remove-totp keeps TOTP and says a login needs a code", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  await withStore(tmp.dir, totpOn);
  const got = await admin(["reset-password", "admin", "--data-dir", tmp.dir]);
  assert.equal(got.code, 0, got.stderr);
  assert.match(
    got.stderr,
    /Note: "admin" has TOTP on; logging in still needs a code from the authenticator\./,
  );
  assert.doesNotMatch(got.stderr, /Removed the TOTP|no TOTP on/);
  await withStore(tmp.dir, async (store) => {
    assert.deepEqual(
      (await findUser(store, "admin"))!.spec!.totp,
      CONFIRMED_TOTP,
    );
  });
});

Deno.test("admin reset-password reads the password from --password-file or from standard input that is not a terminal", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const file = join(tmp.dir, "pw");
  await Deno.writeTextFile(file, "from a file, long enough\n");
  const fromFile = await admin([
    "reset-password",
    "admin",
    "--password-file",
    file,
    "--data-dir",
    tmp.dir,
  ]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(fromFile.stdout, "", "a given password is never printed");
  await withStore(tmp.dir, async (store) => {
    assert.ok(
      await verifyPassword("from a file, long enough", await adminHash(store)),
    );
  });

  const piped = await admin(
    ["reset-password", "admin", "--data-dir", tmp.dir],
    "piped in, long enough\r\n",
  );
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, "");
  await withStore(tmp.dir, async (store) => {
    assert.ok(
      await verifyPassword("piped in, long enough", await adminHash(store)),
    );
  });

  // An empty standard input (</dev/null) gives no password: one is generated.
  const empty = await admin(
    ["reset-password", "admin", "--data-dir", tmp.dir],
    "",
  );
  assert.equal(empty.code, 0, empty.stderr);
  await withStore(tmp.dir, async (store) => {
    assert.ok(
      await verifyPassword(empty.stdout.trim(), await adminHash(store)),
    );
  });
});

Deno.test("admin reset-password refuses a weak or multi-line password and an unknown user, changing nothing", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const before = await withStore(tmp.dir, adminHash);
  const weak = join(tmp.dir, "weak");
  await Deno.writeTextFile(weak, "12345678\n");
  const cases: [string[], string | undefined, RegExp][] = [
    [["--password-file", weak], undefined, /most common passwords/],
    [[], "two\nlines\n", /standard input holds more than one line/],
    [
      ["--password-file", join(tmp.dir, "none")],
      undefined,
      /cannot read the password file/,
    ],
  ];
  for (const [flags, stdin, message] of cases) {
    const got = await admin(
      ["reset-password", "admin", ...flags, "--data-dir", tmp.dir],
      stdin,
    );
    assert.equal(got.code, 1);
    assert.match(got.stderr, message);
    assert.equal(got.stdout, "");
  }
  const unknown = await admin(["reset-password", "bob", "--data-dir", tmp.dir]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^kudurru admin reset-password: No user "bob" \(`kudurru admin list-users` lists them\)\n$/,
  );
  assert.equal(unknown.stdout, "", "no password shown for a reset not done");
  assert.equal(await withStore(tmp.dir, adminHash), before);
});

Deno.test("admin with no state.db or no data directory says so and creates neither", async () => {
  await using tmp = await tempDir();
  const none = await admin(["reset-password", "admin", "--data-dir", tmp.dir]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /no server has started on .* yet .* start kudurru serve once/,
  );
  const token = await admin([
    "create-token",
    "--user",
    "admin",
    "--name",
    "x",
    "--data-dir",
    tmp.dir,
  ]);
  assert.equal(token.code, 1);
  assert.deepEqual([...Deno.readDirSync(tmp.dir)], []);
  const list = await admin(["list-users", "--data-dir", tmp.dir]);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^No users/);
  assert.deepEqual([...Deno.readDirSync(tmp.dir)], []);

  const missing = join(tmp.dir, "typo");
  const got = await admin(["list-users", "--data-dir", missing]);
  assert.equal(got.code, 1);
  assert.match(got.stderr, /No data directory at ".*typo"/);
});

Deno.test("admin create-token with no server makes a working token, with scopes and a lifetime", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const config = await configFile(tmp.dir, "0");
  const before = Date.now();
  const got = await admin([
    "create-token",
    "--user",
    "admin",
    "--name",
    "ci deploy",
    "--scope",
    "viewer",
    "--scope",
    "zone-admin@home",
    "--expires",
    "30d",
    "--data-dir",
    tmp.dir,
    "--config",
    config,
  ]);
  assert.equal(got.code, 0, got.stderr);
  const text = got.stdout.trim();
  assert.equal(got.stdout, `${text}\n`, "the token alone on stdout");
  const parsed = parseToken(text);
  assert.ok(parsed, text);
  assert.match(
    got.stderr,
    new RegExp(
      `Made API token ${parsed.id} for User "admin" \\("ci deploy"\\) in .*state\\.db \\(no server is running\\): viewer, zone-admin on zone home, expires 20`,
    ),
  );
  assert.match(got.stderr, /shown this once/);
  await withStore(tmp.dir, async (store) => {
    const valid = await new TokenChecker(store).check(text, Date.now());
    assert.ok(valid);
    const spec = valid.token.spec!;
    assert.deepEqual(spec.scopes, [
      { role: "viewer" },
      { role: "zone-admin", scope: { kind: "zone", name: "home" } },
    ]);
    const expires = Date.parse(spec.expiresAt!);
    const days30 = 30 * 86_400_000;
    assert.ok(expires >= before + days30 && expires <= Date.now() + days30);
  });
  assert.equal(auditOf(tmp.dir).at(-1), `${LOCAL_ADMIN_ACTOR} create APIToken`);

  const sa = await admin([
    "create-token",
    "--service-account",
    "ci",
    "--name",
    "pipeline",
    "--data-dir",
    tmp.dir,
    "--config",
    config,
  ]);
  assert.equal(sa.code, 0, sa.stderr);
  assert.match(
    sa.stderr,
    /ServiceAccount "ci" .*the owner's full rights, never expires/,
  );
});

Deno.test("admin create-token with no server follows auth.tokens.maxLifetime of this machine's configuration", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const config = await configFile(tmp.dir, "1h");
  const flags = [
    "--user",
    "admin",
    "--name",
    "x",
    "--data-dir",
    tmp.dir,
    "--config",
    config,
  ];
  const tooLong = await admin(["create-token", ...flags, "--expires", "2h"]);
  assert.equal(tooLong.code, 1);
  assert.match(tooLong.stderr, /at most 3600 s \(auth\.tokens\.maxLifetime\)/);
  assert.equal(tooLong.stdout, "");
  const longest = await admin(["create-token", ...flags]);
  assert.equal(longest.code, 0, longest.stderr);
  await withStore(tmp.dir, async (store) => {
    const valid = await new TokenChecker(store).check(
      longest.stdout.trim(),
      Date.now(),
    );
    const left = Date.parse(valid!.token.spec!.expiresAt!) - Date.now();
    assert.ok(left > 3_590_000 && left <= 3_600_000, String(left));
  });
});

Deno.test("admin create-token refuses an unknown or disabled owner with no server", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const config = await configFile(tmp.dir, "0");
  const flags = ["--name", "x", "--data-dir", tmp.dir, "--config", config];
  const user = await admin(["create-token", "--user", "bob", ...flags]);
  assert.equal(user.code, 1);
  assert.match(user.stderr, /No user "bob"/);
  const sa = await admin([
    "create-token",
    "--service-account",
    "nope",
    ...flags,
  ]);
  assert.equal(sa.code, 1);
  assert.match(sa.stderr, /No service account "nope"/);
});

Deno.test("admin list-users with no server: a table, or JSON without hashes", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const table = await admin(["list-users", "--data-dir", tmp.dir]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(
    table.stdout,
    /^NAME +DISPLAY NAME +DISABLED +MUST CHANGE PASSWORD +TOTP +CREATED\nadmin +Administrator +no +no +no +20\d\d-/,
  );
  const json = await admin(["list-users", "-o", "json", "--data-dir", tmp.dir]);
  assert.equal(json.code, 0, json.stderr);
  const items = JSON.parse(json.stdout).items;
  assert.equal(items.length, 1);
  assert.deepEqual(
    { ...items[0], createdAt: "" },
    {
      name: "admin",
      displayName: "Administrator",
      disabled: false,
      mustChangePassword: false,
      localPassword: true,
      totp: false,
      createdAt: "",
    },
  );
  assert.doesNotMatch(json.stdout, /argon2/);
});

Deno.test("admin usage errors name what is wrong", async () => {
  const cases: [string[], RegExp][] = [
    [[], /name a subcommand first/],
    [["--data-dir", "x", "list-users"], /name a subcommand first/],
    [
      ["reset-pasword", "admin"],
      /unknown subcommand "reset-pasword" \(did you mean "reset-password"\?\)/,
    ],
    [["reset-password"], /name the USER/],
    [
      ["reset-password", "admin", "--password", "x"],
      /Unknown option '--password'/,
    ],
    [["reset-password", "a", "b"], /unexpected argument "b"/],
    [
      ["create-token", "--name", "x"],
      /either --user USER or --service-account NAME/,
    ],
    [
      ["create-token", "--user", "a", "--service-account", "b", "--name", "x"],
      /either --user/,
    ],
    [["create-token", "--user", "a"], /--name TEXT says what the token is for/],
    [
      ["create-token", "--user", "a", "--name", "x", "--scope", "root"],
      /--scope root: unknown role "root"; roles: viewer/,
    ],
    [
      ["create-token", "--user", "a", "--name", "x", "--scope", "viewer@"],
      /--scope viewer@: is required for a zone scope/,
    ],
    [
      ["create-token", "--user", "a", "--name", "x", "--expires", "5ms"],
      /--expires 5ms is not a lifetime such as 30d/,
    ],
    [
      ["create-token", "--print-only", "--user", "a"],
      /--print-only stores nothing and takes no other flag \(--user\)/,
    ],
    [["list-users", "-o", "yaml"], /-o must be table or json, not "yaml"/],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(
      () => admin(args),
      (err) => {
        assert.ok(err instanceof UsageError, `${args.join(" ")}: ${err}`);
        assert.match(err.message, message, args.join(" "));
        return true;
      },
    );
  }
});

Deno.test("admin flag values parse as documented", () => {
  assert.deepEqual(parseScope("viewer"), { role: "viewer" });
  assert.deepEqual(parseScope("zone-admin@home-lan"), {
    role: "zone-admin",
    scope: { kind: "zone", name: "home-lan" },
  });
  assert.equal(parseExpiry("30d"), 30 * 86_400);
  assert.equal(parseExpiry("1h30m"), 5400);
  assert.throws(() => parseExpiry("0"), UsageError);
  assert.throws(() => parseExpiry("1500ms"), UsageError);
});

Deno.test("admin create-token --print-only prints a token that KUDURRU_BOOTSTRAP_TOKEN accepts and stores nothing", async () => {
  const got = await admin(["create-token", "--print-only"]);
  assert.equal(got.code, 0);
  assert.ok(parseToken(got.stdout.trim()), got.stdout);
  assert.match(got.stderr, /stored nowhere/);
});

Deno.test("kudurru admin is a command: listed in help, run through runCli", async () => {
  await using tmp = await tempDir();
  await seed(tmp.dir);
  const help = bufferIO();
  assert.equal(await runCli(["help"], help.io), 0);
  assert.match(help.stdout(), /^ {2}admin +Reset a password/m);
  const usage = bufferIO();
  assert.equal(await runCli(["admin", "--help"], usage.io), 0);
  assert.match(usage.stdout(), /kudurru admin reset-password USER/);
  const list = bufferIO();
  assert.equal(
    await runCli(["admin", "list-users", "--data-dir", tmp.dir], list.io),
    0,
    list.stderr(),
  );
  assert.match(list.stdout(), /^admin +Administrator/m);
  const bad = bufferIO();
  assert.equal(await runCli(["admin", "frobnicate"], bad.io), 2);
  assert.match(bad.stderr(), /unknown subcommand "frobnicate"[^]*Usage:/);
});

// ---------------------------------------------------------------------------
// Through a running server's control socket.

/**
 * Serves the control socket of `dir` with the admin actions over its
 * state.db (or none, as an older server), runs `fn`, stops.
 */
async function withServer(
  dir: string,
  opts: AdminOptions | "no admin",
  fn: (store: Store, logger: ReturnType<typeof memoryLogger>) => Promise<void>,
): Promise<void> {
  const store = await openSqliteStore(join(dir, "state.db"));
  const logger = memoryLogger();
  const control = await startControlSocket(dir, {
    flushCache: () => Promise.resolve(0),
    ...(opts !== "no admin" && { admin: storeAdminActions(store, opts) }),
  }, logger);
  assert.ok(control);
  try {
    await fn(store, logger);
  } finally {
    await control.stop();
    await store.close();
  }
}

/** One raw request to the socket in `dir`. */
async function raw(dir: string, endpoint: string, init: RequestInit = {}) {
  const client = Deno.createHttpClient({
    proxy: { transport: "unix", path: join(dir, CONTROL_SOCKET_FILE) },
  });
  try {
    const res = await fetch(`http://localhost${endpoint}`, { ...init, client });
    return { status: res.status, body: await res.json() };
  } finally {
    client.close();
  }
}

const post = (body: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
});

/** The socket tests, each on a fresh SOCKET_TEST_DIR holding seed()'s state.db. */
const SOCKET_CASES: [string, (dir: string) => Promise<void>][] = [
  [
    "reset-password asks the server, which writes as local-admin and logs no password",
    async (dir) => {
      await withServer(dir, {}, async (store, logger) => {
        const got = await admin(["reset-password", "admin", "--data-dir", dir]);
        assert.equal(got.code, 0, got.stderr);
        assert.match(got.stderr, /through the running server/);
        const password = got.stdout.trim();
        assert.ok(await verifyPassword(password, await adminHash(store)));
        assert.equal(
          (await findUser(store, "admin"))!.spec!.mustChangePassword,
          true,
        );
        const log = logger.lines.join("\n");
        assert.match(log, /Password reset through the control socket/);
        assert.match(log, /"password":"generated"/);
        assert.doesNotMatch(log, new RegExp(password));
      });
      assert.equal(auditOf(dir).at(-1), `${LOCAL_ADMIN_ACTOR} update User`);
    },
  ],
  [
    "reset-password --remove-totp asks the server, which removes TOTP in its one local-admin write",
    async (dir) => {
      await withStore(dir, totpOn);
      const rows = auditOf(dir).length;
      await withServer(dir, {}, async (store, logger) => {
        const got = await admin([
          "reset-password",
          "admin",
          "--remove-totp",
          "--data-dir",
          dir,
        ]);
        assert.equal(got.code, 0, got.stderr);
        assert.match(got.stderr, /through the running server/);
        assert.match(got.stderr, /Removed the TOTP of "admin"/);
        const user = await findUser(store, "admin");
        assert.equal(user!.spec!.totp, undefined);
        assert.equal(user!.spec!.mustChangePassword, true);
        const log = logger.lines.join("\n");
        assert.match(log, /Password reset through the control socket/);
        assert.match(log, /"totp":"removed"/);
        assert.doesNotMatch(log, new RegExp(got.stdout.trim()));
      });
      assert.deepEqual(auditOf(dir).slice(rows), [
        `${LOCAL_ADMIN_ACTOR} update User`,
      ]);
    },
  ],
  [
    "reset-password --remove-totp to a server too old for it says so, and nothing changes",
    async (dir) => {
      await withStore(dir, totpOn);
      const rows = auditOf(dir).length;
      // What an older server answers a field it does not know.
      const path = join(dir, CONTROL_SOCKET_FILE);
      const server = Deno.serve(
        { path, onListen: () => {} },
        () =>
          Response.json({ error: 'unknown field "removeTotp"' }, {
            status: 400,
          }),
      );
      try {
        const got = await admin([
          "reset-password",
          "admin",
          "--remove-totp",
          "--data-dir",
          dir,
        ]);
        assert.equal(got.code, 1);
        assert.equal(got.stdout, "");
        assert.match(
          got.stderr,
          /^kudurru admin reset-password: the server running on .*kudurru\.sock cannot remove TOTP \(it is older\): restart it with this version of kudurru, or stop it and run this again/,
        );
      } finally {
        await server.shutdown();
      }
      // Not done on state.db behind the running server's back either.
      assert.equal(auditOf(dir).length, rows);
      await withStore(dir, async (store) => {
        assert.deepEqual(
          (await findUser(store, "admin"))!.spec!.totp,
          CONFIRMED_TOTP,
        );
      });
    },
  ],
  [
    "create-token follows the server's token lifetime, not this shell's configuration",
    async (dir) => {
      const config = await configFile(dir, "0");
      await withServer(
        dir,
        { maxTokenLifetimeMs: 3_600_000 },
        async (store) => {
          const flags = [
            "--user",
            "admin",
            "--name",
            "x",
            "--data-dir",
            dir,
            "--config",
            config,
          ];
          const tooLong = await admin([
            "create-token",
            ...flags,
            "--expires",
            "2h",
          ]);
          assert.equal(tooLong.code, 1);
          assert.match(
            tooLong.stderr,
            /^kudurru admin create-token: A token may live at most 3600 s \(auth\.tokens\.maxLifetime\)\n$/,
          );
          const got = await admin([
            "create-token",
            ...flags,
            "--scope",
            "viewer",
          ]);
          assert.equal(got.code, 0, got.stderr);
          assert.match(
            got.stderr,
            /through the running server: viewer, expires 20/,
          );
          const valid = await new TokenChecker(store).check(
            got.stdout.trim(),
            Date.now(),
          );
          assert.ok(valid);
          assert.deepEqual(valid.token.spec!.scopes, [{ role: "viewer" }]);
          assert.ok(
            Date.parse(valid.token.spec!.expiresAt!) <= Date.now() + 3_600_000,
          );
        },
      );
    },
  ],
  ["list-users and refusals come from the server", async (dir) => {
    await withServer(dir, {}, async () => {
      const got = await admin(["list-users", "-o", "json", "--data-dir", dir]);
      assert.equal(got.code, 0, got.stderr);
      assert.deepEqual(
        JSON.parse(got.stdout).items.map((u: { name: string }) => u.name),
        ["admin"],
      );
      const unknown = await admin(["reset-password", "bob", "--data-dir", dir]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /No user "bob"/);
      const disabledSa = await admin([
        "create-token",
        "--service-account",
        "nope",
        "--name",
        "x",
        "--data-dir",
        dir,
      ]);
      assert.equal(disabledSa.code, 1);
      assert.match(disabledSa.stderr, /No service account "nope"/);
    });
  }],
  [
    "a server without admin endpoints is an error, and state.db is left alone",
    async (dir) => {
      const before = auditOf(dir).length;
      await withServer(dir, "no admin", async () => {
        const got = await admin(["reset-password", "admin", "--data-dir", dir]);
        assert.equal(got.code, 1);
        assert.match(
          got.stderr,
          /does not offer local administration .* stop it and run this again/,
        );
        assert.equal(got.stdout, "");
      });
      assert.equal(auditOf(dir).length, before);
    },
  ],
  [
    "the admin endpoints refuse unknown fields, bad shapes, big bodies and wrong methods",
    async (dir) => {
      await withServer(dir, {}, async () => {
        const cases: [string, RequestInit, number, RegExp][] = [
          [
            "/v1/admin/reset-password",
            post('{"user":"admin","pasword":"x"}'),
            400,
            /^unknown field "pasword"$/,
          ],
          [
            "/v1/admin/reset-password",
            post('{"password":"x"}'),
            400,
            /"user" must be a user name/,
          ],
          [
            "/v1/admin/reset-password",
            post("[]"),
            400,
            /must be a JSON object/,
          ],
          ["/v1/admin/reset-password", post("{"), 400, /must be JSON/],
          [
            "/v1/admin/reset-password",
            post('{"user":"admin","password":"short"}'),
            400,
            /too short/,
          ],
          ["/v1/admin/reset-password", { method: "GET" }, 405, /use POST/],
          [
            "/v1/admin/reset-password",
            post('{"user":"admin","removeTotp":"yes"}'),
            400,
            /^"removeTotp" must be true or false$/,
          ],
          [
            "/v1/admin/reset-password",
            post('{"user":"admin","removeTOTP":true}'),
            400,
            /^unknown field "removeTOTP"$/,
          ],
          [
            "/v1/admin/tokens",
            post(
              '{"user":"admin","name":"x","scopes":[{"role":"viewer","zone":"a"}]}',
            ),
            400,
            /unknown field "zone" in scopes\[0\]/,
          ],
          [
            "/v1/admin/tokens",
            post(
              '{"user":"admin","name":"x","scopes":[{"role":"viewer","scope":{"kind":"zonegroup"}}]}',
            ),
            400,
            /scopes\[0\]\.scope\.kind must be cluster or zone/,
          ],
          [
            "/v1/admin/tokens",
            post('{"user":"admin","name":"x","expiresInSeconds":"1h"}'),
            400,
            /"expiresInSeconds" must be a number/,
          ],
          [
            "/v1/admin/tokens",
            post('{"user":"bob","name":"x"}'),
            404,
            /No user "bob"/,
          ],
          [
            "/v1/admin/tokens",
            post(
              JSON.stringify({
                user: "admin",
                name: "x".repeat(MAX_CONTROL_BODY),
              }),
            ),
            413,
            /over 16384 octets/,
          ],
          ["/v1/admin/users", post("{}"), 405, /use GET/],
          [
            "/v1/admin/nothing",
            { method: "GET" },
            404,
            /no such control endpoint/,
          ],
        ];
        for (const [endpoint, init, status, message] of cases) {
          const got = await raw(dir, endpoint, init);
          assert.equal(
            got.status,
            status,
            `${endpoint} ${init.body}: ${JSON.stringify(got.body)}`,
          );
          assert.match(got.body.error, message);
        }
        const users = await raw(dir, "/v1/admin/users");
        assert.equal(users.status, 200);
        assert.equal(users.body.items[0].name, "admin");
        assert.equal(users.body.items[0].passwordHash, undefined);
      });
    },
  ],
];

async function socketDir() {
  await Deno.remove(SOCKET_TEST_DIR, { recursive: true }).catch(() => {});
  await Deno.mkdir(SOCKET_TEST_DIR);
  return {
    dir: SOCKET_TEST_DIR,
    [Symbol.asyncDispose]: () =>
      Deno.remove(SOCKET_TEST_DIR, { recursive: true }),
  };
}

for (const [name, fn] of SOCKET_CASES) {
  Deno.test(`admin over the control socket: ${name}`, async () => {
    await using tmp = await socketDir();
    await seed(tmp.dir);
    await fn(tmp.dir);
  });
}
