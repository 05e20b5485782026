import assert from "node:assert/strict";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import type { APIToken, User } from "../api/v1alpha1/auth_kinds.ts";
import {
  checkLogin,
  createUser,
  findUser,
  updateUser,
} from "../auth/accounts.ts";
import { parseToken } from "../auth/api_token.ts";
import { verifyPassword } from "../auth/password.ts";
import type { SealingKeys } from "../auth/sealed.ts";
import { findToken, TokenChecker } from "../auth/tokens.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  AdminError,
  createAdminToken,
  listUsers,
  LOCAL_ADMIN_ACTOR,
  resetPassword,
  storeAdminActions,
} from "./admin_actions.ts";

const NOW = Date.parse("2030-06-01T12:00:00.000Z");
const OLD_PASSWORD = "correct-horse-battery";

async function storeWithAdmin() {
  const store = createMemoryStore({ now: () => new Date(NOW) });
  await createUser(store, "admin", OLD_PASSWORD, {
    displayName: "Administrator",
  }, "bootstrap");
  return store;
}

async function user(store: ReturnType<typeof createMemoryStore>, name: string) {
  const found = await findUser(store, name);
  assert.ok(found, `user ${name}`);
  return found;
}

/** Rejects with an AdminError of this reason and a message matching `re`. */
async function refused(
  promise: Promise<unknown>,
  reason: AdminError["reason"],
  re: RegExp,
) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof AdminError, String(err));
    assert.equal(err.reason, reason);
    assert.match(err.message, re);
    return true;
  });
}

Deno.test("resetPassword without a password generates one, forces a change and ends earlier sessions", async () => {
  const store = await storeWithAdmin();
  const reset = await resetPassword(store, "admin", undefined, {
    now: () => NOW,
  });
  assert.ok(reset.generatedPassword);
  assert.equal(reset.generatedPassword.length, 24);
  assert.deepEqual({ ...reset, generatedPassword: "" }, {
    user: "admin",
    generatedPassword: "",
    disabled: false,
    totp: false,
  });
  const saved = await user(store, "admin");
  assert.ok(
    await verifyPassword(reset.generatedPassword, saved.spec!.passwordHash!),
  );
  assert.equal(
    await verifyPassword(OLD_PASSWORD, saved.spec!.passwordHash!),
    false,
  );
  assert.equal(saved.spec!.mustChangePassword, true);
  assert.equal(saved.spec!.sessionsValidAfter, new Date(NOW).toISOString());
  const last = store.audit.at(-1)!;
  assert.deepEqual([last.actor, last.action, last.key.name], [
    LOCAL_ADMIN_ACTOR,
    "update",
    "admin",
  ]);
});

Deno.test("resetPassword with a password sets it and returns no password", async () => {
  const store = await storeWithAdmin();
  const reset = await resetPassword(store, "admin", "a new long passphrase");
  assert.equal(reset.generatedPassword, undefined);
  const saved = await user(store, "admin");
  assert.ok(
    await verifyPassword("a new long passphrase", saved.spec!.passwordHash!),
  );
  assert.equal(saved.spec!.mustChangePassword, true);
});

Deno.test("resetPassword refuses a weak password and an unknown user, and changes nothing", async () => {
  const store = await storeWithAdmin();
  const before = await user(store, "admin");
  await refused(resetPassword(store, "admin", "short"), "invalid", /too short/);
  await refused(
    resetPassword(store, "admin", "password"),
    "invalid",
    /too short|most common/,
  );
  await refused(
    resetPassword(store, "nobody"),
    "not_found",
    /No user "nobody" \(`kudurru admin list-users` lists them\)/,
  );
  const after = await user(store, "admin");
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
});

Deno.test("resetPassword says when the user is disabled or has TOTP on", async () => {
  const store = await storeWithAdmin();
  await updateUser(store, await user(store, "admin"), {
    disabled: true,
    totp: { sealedSecret: "v1.x.y.z", enabled: true, lastStep: 0 },
  }, "test");
  const reset = await resetPassword(store, "admin", "another passphrase");
  assert.equal(reset.disabled, true);
  assert.equal(reset.totp, true);
  // A reset is not a way to re-enable a user.
  assert.equal((await user(store, "admin")).spec!.disabled, true);
});

/** A TOTP as a confirmed enrolment leaves it (the secret is never opened here). */
const CONFIRMED_TOTP = { sealedSecret: "v1.x.y.z", enabled: true, lastStep: 7 };

/** No keys: enough for a login that never opens a TOTP secret. */
const NO_TOTP_KEYS: SealingKeys = {
  purpose: "totpSecret",
  currentId: "none",
  byId: new Map(),
};

async function withTotp(
  store: ReturnType<typeof createMemoryStore>,
  totp: NonNullable<NonNullable<User["spec"]>["totp"]>,
) {
  await updateUser(store, await user(store, "admin"), { totp }, "test");
}

Deno.test("resetPassword with removeTotp removes TOTP in the same write: one local-admin audit row, and the next login needs no code", async () => {
  const store = await storeWithAdmin();
  await withTotp(store, CONFIRMED_TOTP);
  const login = (password: string) =>
    checkLogin(
      store,
      { username: "admin", password },
      NO_TOTP_KEYS,
      NOW,
    );
  assert.deepEqual(await login(OLD_PASSWORD), { failure: "totp_required" });
  const rows = store.audit.length;
  const reset = await resetPassword(store, "admin", "a lost phone passphrase", {
    now: () => NOW,
    removeTotp: true,
  });
  assert.deepEqual(reset, {
    user: "admin",
    disabled: false,
    totp: false,
    totpRemoved: true,
  });
  const saved = await user(store, "admin");
  assert.equal(saved.spec!.totp, undefined);
  assert.ok(
    await verifyPassword("a lost phone passphrase", saved.spec!.passwordHash!),
  );
  assert.equal(saved.spec!.mustChangePassword, true);
  assert.equal(saved.spec!.sessionsValidAfter, new Date(NOW).toISOString());
  assert.equal(store.audit.length, rows + 1, "one write, one audit row");
  const last = store.audit.at(-1)!;
  assert.deepEqual([last.actor, last.action, last.key.name], [
    LOCAL_ADMIN_ACTOR,
    "update",
    "admin",
  ]);
  const after = await login("a lost phone passphrase");
  assert.ok("user" in after, JSON.stringify(after));
  assert.equal(after.user.spec!.mustChangePassword, true);
});

Deno.test("resetPassword with removeTotp says when TOTP was not on, and drops a setup never confirmed", async () => {
  const store = await storeWithAdmin();
  const none = await resetPassword(store, "admin", "another passphrase", {
    removeTotp: true,
  });
  assert.equal(none.totpRemoved, false);
  assert.equal(none.totp, false);
  await withTotp(store, { ...CONFIRMED_TOTP, enabled: false });
  const pending = await resetPassword(store, "admin", "another passphrase", {
    removeTotp: true,
  });
  assert.equal(pending.totpRemoved, false);
  assert.equal((await user(store, "admin")).spec!.totp, undefined);
});

Deno.test("resetPassword without removeTotp leaves TOTP as it was and says nothing of removing it", async () => {
  const store = await storeWithAdmin();
  await withTotp(store, CONFIRMED_TOTP);
  for (const removeTotp of [undefined, false]) {
    const reset = await resetPassword(store, "admin", "another passphrase", {
      removeTotp,
    });
    assert.equal(reset.totp, true);
    assert.equal("totpRemoved" in reset, false);
    assert.deepEqual((await user(store, "admin")).spec!.totp, CONFIRMED_TOTP);
  }
});

Deno.test("resetPassword with removeTotp that is refused removes nothing", async () => {
  const store = await storeWithAdmin();
  await withTotp(store, CONFIRMED_TOTP);
  const before = await user(store, "admin");
  await refused(
    resetPassword(store, "admin", "short", { removeTotp: true }),
    "invalid",
    /too short/,
  );
  const after = await user(store, "admin");
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
  assert.deepEqual(after.spec!.totp, CONFIRMED_TOTP);
});

Deno.test("storeAdminActions passes removeTotp on to the reset", async () => {
  const store = await storeWithAdmin();
  await withTotp(store, CONFIRMED_TOTP);
  const admin = storeAdminActions(store, { now: () => NOW });
  const kept = await admin.resetPassword("admin", "another passphrase");
  assert.equal(kept.totp, true);
  const removed = await admin.resetPassword("admin", undefined, {
    removeTotp: true,
  });
  assert.equal(removed.totpRemoved, true);
  assert.ok(removed.generatedPassword);
  assert.equal((await user(store, "admin")).spec!.totp, undefined);
});

Deno.test("createAdminToken makes a working token for a user, shown once, audited as local-admin", async () => {
  const store = await storeWithAdmin();
  const made = await createAdminToken(store, {
    user: "admin",
    name: " ci deploy ",
    scopes: [{ role: "viewer" }],
    expiresInSeconds: 3600,
  }, { now: () => NOW });
  const parsed = parseToken(made.token);
  assert.ok(parsed);
  assert.equal(parsed.id, made.id);
  assert.deepEqual(
    { ...made, id: "", token: "" },
    {
      id: "",
      token: "",
      owner: { kind: "User", name: "admin" },
      name: "ci deploy",
      scopes: [{ role: "viewer" }],
      expiresAt: new Date(NOW + 3_600_000).toISOString(),
    },
  );
  const stored = await findToken(store, made.id) as APIToken;
  assert.equal(stored.spec!.description, "ci deploy");
  assert.doesNotMatch(JSON.stringify(stored), new RegExp(parsed.secret));
  const valid = await new TokenChecker(store).check(made.token, NOW + 1000);
  assert.deepEqual(valid?.owner, { kind: "User", name: "admin" });
  assert.equal(
    await new TokenChecker(store).check(made.token, NOW + 3_600_000),
    undefined,
    "expired after its lifetime",
  );
  const last = store.audit.at(-1)!;
  assert.deepEqual([last.actor, last.key.kind], [
    LOCAL_ADMIN_ACTOR,
    "APIToken",
  ]);
});

Deno.test("createAdminToken follows auth.tokens.maxLifetime as the API does", async () => {
  const store = await storeWithAdmin();
  const opts = { now: () => NOW, maxTokenLifetimeMs: 86_400_000 };
  const longest = await createAdminToken(store, {
    user: "admin",
    name: "default lifetime",
  }, opts);
  assert.equal(longest.expiresAt, new Date(NOW + 86_400_000).toISOString());
  await refused(
    createAdminToken(store, {
      user: "admin",
      name: "too long",
      expiresInSeconds: 86_401,
    }, opts),
    "invalid",
    /at most 86400 s \(auth\.tokens\.maxLifetime\)/,
  );
  const forever = await createAdminToken(store, {
    user: "admin",
    name: "no limit",
  }, { now: () => NOW });
  assert.equal(forever.expiresAt, undefined);
  await refused(
    createAdminToken(store, {
      user: "admin",
      name: "x",
      expiresInSeconds: 1.5,
    }),
    "invalid",
    /positive whole number/,
  );
  await refused(
    createAdminToken(store, {
      user: "admin",
      name: "x",
      expiresInSeconds: 1e15,
    }),
    "invalid",
    /at most 3650 days/,
  );
});

Deno.test("createAdminToken for a service account, and its refusals", async () => {
  const store = await storeWithAdmin();
  await store.apply({
    apiVersion: API_VERSION,
    kind: "ServiceAccount",
    metadata: { name: "ci" },
    spec: { description: "" },
  }, { manager: "api", actor: "test" });
  const made = await createAdminToken(store, {
    serviceAccount: "ci",
    name: "pipeline",
    scopes: [{ role: "zone-admin", scope: { kind: "zone", name: "home" } }],
  });
  assert.deepEqual(made.owner, { kind: "ServiceAccount", name: "ci" });
  assert.ok(await new TokenChecker(store).check(made.token, Date.now()));

  const count = async () => (await store.list("APIToken")).items.length;
  const before = await count();
  await refused(
    createAdminToken(store, { user: "nobody", name: "x" }),
    "not_found",
    /No user "nobody"/,
  );
  await refused(
    createAdminToken(store, { serviceAccount: "nobody", name: "x" }),
    "not_found",
    /No service account "nobody"/,
  );
  await refused(
    createAdminToken(store, { user: "admin", serviceAccount: "ci", name: "x" }),
    "invalid",
    /name exactly one/,
  );
  await refused(
    createAdminToken(store, { name: "x" }),
    "invalid",
    /name exactly one/,
  );
  await refused(
    createAdminToken(store, { user: "admin", name: "  " }),
    "invalid",
    /needs a name/,
  );
  await refused(
    createAdminToken(store, {
      user: "admin",
      name: "x",
      scopes: [{ role: "root" }],
    }),
    "invalid",
    /scopes\[0\]\.role: unknown role "root"; roles: viewer, operator/,
  );
  await refused(
    createAdminToken(store, {
      user: "admin",
      name: "x",
      scopes: [{ role: "viewer", scope: { kind: "zone" } }],
    }),
    "invalid",
    /scopes\[0\]\.scope\.name: is required for a zone scope/,
  );
  await updateUser(store, await user(store, "admin"), { disabled: true }, "t");
  await refused(
    createAdminToken(store, { user: "admin", name: "x" }),
    "conflict",
    /User "admin" is disabled/,
  );
  assert.equal(await count(), before, "no refused request made a token");
});

Deno.test("listUsers shows every user without hashes or secrets", async () => {
  const store = await storeWithAdmin();
  const admin = await user(store, "admin");
  await updateUser(store, admin, {
    mustChangePassword: true,
    totp: {
      sealedSecret: "v1.kid.iv.SEALEDSECRET",
      enabled: true,
      lastStep: 3,
    },
  }, "test");
  await createUser(store, "sso-bob", undefined, { disabled: true }, "test");
  const users = await listUsers(store);
  assert.deepEqual(users, [
    {
      name: "admin",
      displayName: "Administrator",
      disabled: false,
      mustChangePassword: true,
      localPassword: true,
      totp: true,
      createdAt: new Date(NOW).toISOString(),
    },
    {
      name: "sso-bob",
      displayName: "",
      disabled: true,
      mustChangePassword: false,
      localPassword: false,
      totp: false,
      createdAt: new Date(NOW).toISOString(),
    },
  ]);
  const text = JSON.stringify(users);
  assert.doesNotMatch(text, /argon2|SEALEDSECRET|passwordHash|sealedSecret/);
});

Deno.test("listUsers reads past the first page", async () => {
  const store = createMemoryStore();
  for (let i = 0; i < 501; i++) {
    await createUser(
      store,
      `u${String(i).padStart(3, "0")}`,
      undefined,
      {},
      "t",
    );
  }
  const users = await listUsers(store);
  assert.equal(users.length, 501);
  assert.equal(users.at(-1)!.name, "u500");
});

Deno.test("storeAdminActions binds the actions to one store and its options", async () => {
  const store = await storeWithAdmin();
  const admin = storeAdminActions(store, {
    now: () => NOW,
    maxTokenLifetimeMs: 60_000,
  });
  const made = await admin.createToken({ user: "admin", name: "bound" });
  assert.equal(made.expiresAt, new Date(NOW + 60_000).toISOString());
  const reset = await admin.resetPassword("admin");
  assert.ok(reset.generatedPassword);
  assert.equal(
    (await user(store, "admin") as User).spec!.sessionsValidAfter,
    new Date(NOW).toISOString(),
  );
  assert.deepEqual((await admin.listUsers()).map((u) => u.name), ["admin"]);
});
