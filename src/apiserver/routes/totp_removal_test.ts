/**
 * `DELETE /api/v1/users/{name}/totp`: an admin removes another user's TOTP
 * (a lost authenticator) with no more than the request; a user removing its
 * own must give its current password, so a stolen session or token cannot
 * drop the second factor. Through the whole API over a memory Store, with
 * real enrolment and real codes.
 */
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import { findUser } from "../../auth/accounts.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  type ApiFixture,
  apiFixture,
} from "../testdata/api_fixture.ts";

const BOB_PASSWORD = "bob's own long passphrase";

/** The code an authenticator app shows at `ms`. */
function codeAt(secret: string, ms: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });
}

interface Setup {
  f: ApiFixture;
  store: ReturnType<typeof createMemoryStore>;
  admin: ApiClient;
  /** Bob, logged in with his password and a code. */
  bob: ApiClient;
  /** Bob's TOTP secret, as his authenticator holds it. */
  secret: string;
}

/**
 * The API with the admin logged in, and "bob", a user without roles, who
 * set his own password and turned TOTP on through the API.
 */
async function setup(): Promise<Setup & AsyncDisposable> {
  const store = createMemoryStore();
  const f = await apiFixture({ store });
  const admin = f.client();
  assert.equal((await admin.login("admin", ADMIN_PASSWORD)).status, 200);
  const made = await admin.request("POST", "/api/v1/users", {
    name: "bob",
    password: "first password, given by the admin",
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const bob = f.client();
  await bob.login("bob", "first password, given by the admin");
  const changed = await bob.request("POST", "/api/v1/auth/password", {
    current: "first password, given by the admin",
    new: BOB_PASSWORD,
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  bob.csrf = changed.body.data.csrf;
  const started = await bob.request("POST", "/api/v1/auth/totp");
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const secret: string = started.body.data.secret;
  const confirmed = await bob.request("POST", "/api/v1/auth/totp/confirm", {
    code: codeAt(secret, f.clock.t),
  });
  assert.equal(confirmed.status, 204, JSON.stringify(confirmed.body));
  f.clock.advance(30_000); // the next code is a new one
  await assertNeedsCode(f);
  return {
    f,
    store,
    admin,
    bob,
    secret,
    [Symbol.asyncDispose]: () => f[Symbol.asyncDispose](),
  };
}

/** Bob's login with his password alone is refused for want of a code. */
async function assertNeedsCode(f: ApiFixture): Promise<void> {
  const login = await f.client().login("bob", BOB_PASSWORD);
  assert.equal(login.status, 401, JSON.stringify(login.body));
  assert.equal(login.body.error.totpRequired, true);
}

/** Bob's login with his password alone works. */
async function assertNoCodeNeeded(f: ApiFixture): Promise<void> {
  const login = await f.client().login("bob", BOB_PASSWORD);
  assert.equal(login.status, 200, JSON.stringify(login.body));
}

async function bobTotp(store: Setup["store"]) {
  return (await findUser(store, "bob"))!.spec!.totp;
}

Deno.test("api an admin removes another user's TOTP without a body: one audit row, the next login needs no code, the user may enrol again", async () => {
  await using s = await setup();
  const rows = s.store.audit.length;
  const removed = await s.admin.request("DELETE", "/api/v1/users/bob/totp");
  assert.equal(removed.status, 204, JSON.stringify(removed.body));
  assert.equal(await bobTotp(s.store), undefined);
  assert.equal(s.store.audit.length, rows + 1);
  const row = s.store.audit.at(-1)!;
  assert.deepEqual([row.actor, row.action, row.key.kind, row.key.name], [
    "admin",
    "update",
    "User",
    "bob",
  ]);
  await assertNoCodeNeeded(s.f);
  const read = await s.admin.request("GET", "/api/v1/users/bob");
  assert.equal(read.body.data.totp, false);
  // Removing a factor ends no session.
  assert.equal(
    (await s.bob.request("GET", "/api/v1/users/bob")).status,
    200,
  );
  const again = await s.bob.request("POST", "/api/v1/auth/totp");
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.notEqual(again.body.data.secret, s.secret);

  // Nothing left to remove: still 204, and nothing written.
  await s.admin.request("DELETE", "/api/v1/users/bob/totp"); // the new setup
  const after = s.store.audit.length;
  const none = await s.admin.request("DELETE", "/api/v1/users/bob/totp");
  assert.equal(none.status, 204);
  assert.equal(s.store.audit.length, after);
});

Deno.test("api a user removing its own TOTP must give the current password", async () => {
  await using s = await setup();
  const cases: [unknown, string][] = [
    [undefined, "password is required"],
    [{}, "password is required"],
    [{ password: "" }, "password is required"],
    [{ password: 42 }, "password is required"],
    [{ password: "not bob's password" }, "The current password is wrong"],
    [{ password: "x".repeat(5000) }, "The current password is wrong"],
  ];
  for (const [body, message] of cases) {
    const refused = await s.bob.request(
      "DELETE",
      "/api/v1/users/bob/totp",
      body,
    );
    assert.equal(refused.status, 422, JSON.stringify([body, refused.body]));
    assert.equal(refused.body.error.key, "invalid");
    assert.ok(
      refused.body.error.message.startsWith(message),
      refused.body.error.message,
    );
    assert.equal(refused.body.error.issues[0].path, "password");
  }
  assert.equal((await bobTotp(s.store))?.enabled, true);
  await assertNeedsCode(s.f);

  const removed = await s.bob.request("DELETE", "/api/v1/users/bob/totp", {
    password: BOB_PASSWORD,
  });
  assert.equal(removed.status, 204, JSON.stringify(removed.body));
  assert.equal(s.store.audit.at(-1)!.actor, "bob");
  await assertNoCodeNeeded(s.f);
});

Deno.test("api an admin removing its own TOTP is the user itself: the password is needed", async () => {
  await using s = await setup();
  const refused = await s.admin.request("DELETE", "/api/v1/users/admin/totp");
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  const done = await s.admin.request("DELETE", "/api/v1/users/admin/totp", {
    password: ADMIN_PASSWORD,
  });
  assert.equal(done.status, 204, JSON.stringify(done.body));
});

Deno.test("api without users update, another user's TOTP stays: a user without roles, a read-only token", async () => {
  await using s = await setup();
  await s.admin.request("POST", "/api/v1/users", {
    name: "carol",
    password: "carol's first password",
  });
  const carol = s.f.client();
  await carol.login("carol", "carol's first password");
  const changed = await carol.request("POST", "/api/v1/auth/password", {
    current: "carol's first password",
    new: "carol's own long passphrase",
  });
  carol.csrf = changed.body.data.csrf;
  const byCarol = await carol.request("DELETE", "/api/v1/users/bob/totp", {
    password: "carol's own long passphrase",
  });
  assert.equal(byCarol.status, 403, JSON.stringify(byCarol.body));
  assert.deepEqual(byCarol.body.error.missing, {
    resource: "users",
    verb: "update",
    scope: "cluster",
  });

  const made = await s.admin.request("POST", "/api/v1/tokens", {
    description: "dashboard",
    scopes: [{ role: "viewer" }],
  });
  const widget = s.f.client();
  widget.token = made.body.data.token;
  const byToken = await widget.request("DELETE", "/api/v1/users/bob/totp");
  assert.equal(byToken.status, 403, JSON.stringify(byToken.body));

  assert.equal((await bobTotp(s.store))?.enabled, true);
  await assertNeedsCode(s.f);
});

Deno.test("api TOTP removal refuses unknown fields, bad bodies and unknown users", async () => {
  await using s = await setup();
  const cases: [string, unknown, number, string][] = [
    ["bob", { pasword: BOB_PASSWORD }, 422, "unknown_field"],
    ["bob", "{nope", 400, "invalid_json"],
    ["bob", [], 422, "invalid"],
    ["nobody", undefined, 404, "not_found"],
  ];
  for (const [user, body, status, key] of cases) {
    const got = await s.admin.request(
      "DELETE",
      `/api/v1/users/${user}/totp`,
      body,
    );
    assert.equal(got.status, status, JSON.stringify([body, got.body]));
    assert.equal(got.body.error.key, key);
  }
  const plain = await s.admin.request(
    "DELETE",
    "/api/v1/users/bob/totp",
    "password=x",
    { "content-type": "text/plain" },
  );
  assert.equal(plain.status, 415);
  assert.equal((await bobTotp(s.store))?.enabled, true);
});

Deno.test("api the OpenAPI document describes TOTP removal and what it needs", async () => {
  await using s = await setup();
  const doc = await s.admin.request("GET", "/api/v1/openapi.json");
  const op = doc.body.paths?.["/api/v1/users/{name}/totp"]?.delete;
  assert.ok(op, JSON.stringify(Object.keys(doc.body.paths ?? {})));
  assert.match(op.summary, /Remove a user's TOTP/);
  assert.match(op.description, /current `password`/);
});

Deno.test("api a session alone cannot turn TOTP off by starting a new enrolment", async () => {
  await using s = await setup();
  const again = await s.bob.request("POST", "/api/v1/auth/totp");
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.equal(again.body.error.key, "conflict");
  assert.match(again.body.error.hint, /DELETE \/api\/v1\/users\/bob\/totp/);
  assert.equal((await bobTotp(s.store))?.enabled, true);
  await assertNeedsCode(s.f);
});
