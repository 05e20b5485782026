/**
 * The access page as admin: an API token with a viewer scope, its secret
 * shown once and then used as a Bearer token (reads pass, a write is 403
 * naming what is missing), and revoked; a new user and a role binding for
 * it; the audit log lists those changes and a row's detail shows the
 * object's diff; the admin turns TOTP on with a code from its secret and
 * off with the password; its sessions are listed, one elsewhere logged
 * out and then every other one (their cookies stop working, this one
 * goes on); a phone scrolls no sideways; logging out everywhere ends this
 * session too.
 */
import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import {
  accessibilityProblems,
  horizontalOverflow,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
const VERA_FIRST = "vera's first passphrase";
const VERA = "vera's own passphrase";
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
await page.getByRole("link", { name: "Access" }).first().click();
await page.getByRole("heading", { name: "Access", level: 1 }).waitFor();

// A token that may only read, shown once.
await page.getByRole("link", { name: "API tokens" }).click();
await page.getByRole("heading", { name: "New API token" }).waitFor();
await page.getByLabel("Description").fill("ci reader");
assert.equal(
  await page.getByLabel("Role", { exact: true }).inputValue(),
  "viewer",
);
await page.getByLabel("Expires after").selectOption("7d");
await page.getByRole("button", { name: "Create", exact: true }).click();
const shown = page.getByTestId("token-secret");
await shown.waitFor();
assert.match(await shown.innerText(), /shown only this once/);
const secret = await shown.getByLabel("The token").inputValue();
assert.match(secret, /^kdr_/);
const id = secret.split("_")[1]!;
await page.getByRole("button", { name: "I have copied it" }).click();
await shown.waitFor({ state: "detached" });
assert.ok(!(await page.content()).includes(secret), "the secret is gone");
const tokenRow = page.locator(`tr[data-token="${id}"]`);
assert.match(await tokenRow.innerText(), /ci reader/);
assert.match(await tokenRow.innerText(), /viewer at cluster/);

const bearer = { authorization: `Bearer ${secret}` };
const read = await fetch(`${env.url}/api/v1/dnszones`, { headers: bearer });
assert.equal(read.status, 200);
await read.body?.cancel();
const write = await fetch(`${env.url}/api/v1/dnszones`, {
  method: "POST",
  headers: { ...bearer, "content-type": "application/json" },
  body: JSON.stringify({
    metadata: { name: "office" },
    spec: { zoneName: "office.test.", type: "primary" },
  }),
});
assert.equal(write.status, 403);
const refused = await write.json();
assert.equal(refused.error.missing.resource, "dnszones");
assert.equal(refused.error.missing.verb, "create");
await page.reload();
await tokenRow.filter({ hasText: "from 127.0.0.1" }).waitFor();

// A user, then a role binding for it.
await page.getByRole("link", { name: "Users" }).click();
await page.getByRole("heading", { name: "New user" }).waitFor();
await page.getByLabel("User name").fill("carol");
await page.getByLabel("Password", { exact: true }).fill(
  "carol's first passphrase",
);
await page.getByRole("button", { name: "Create", exact: true }).click();
await page.getByRole("status").filter({ hasText: "User carol created." })
  .waitFor();
const carol = page.locator('tr[data-user="carol"]');
assert.match(await carol.innerText(), /must change the password/);
await carol.getByRole("button", { name: "Disable carol" }).click();
await carol.filter({ hasText: "disabled" }).waitFor();

await page.getByRole("link", { name: "Role bindings" }).click();
await page.getByRole("heading", { name: "New role binding" }).waitFor();
await page.getByLabel("Subject name").fill("carol");
await page.getByLabel("Role", { exact: true }).selectOption("operator");
await page.getByRole("button", { name: "Create", exact: true }).click();
await page.locator('tr[data-binding="carol-operator"]').waitFor();
const bindings = await (await page.request.get(
  `${env.url}/api/v1/rolebindings`,
)).json();
const made = bindings.data.items.find((b: { metadata: { name: string } }) =>
  b.metadata.name === "carol-operator"
);
assert.deepEqual(made.spec, {
  role: "operator",
  scope: { kind: "cluster" },
  subjects: [{ kind: "User", name: "carol" }],
});

// A viewer, for the end: what it may not do is not offered.
await page.getByRole("link", { name: "Users" }).click();
await page.getByLabel("User name").fill("vera");
await page.getByLabel("Password", { exact: true }).fill(VERA_FIRST);
await page.getByRole("button", { name: "Create", exact: true }).click();
await page.locator('tr[data-user="vera"]').waitFor();
await page.getByRole("link", { name: "Role bindings" }).click();
await page.getByLabel("Subject name").fill("vera");
await page.getByRole("button", { name: "Create", exact: true }).click();
await page.locator('tr[data-binding="vera-viewer"]').waitFor();

// The audit log lists them; a row opens its diff.
await page.getByRole("link", { name: "Audit log" }).click();
const audit = page.getByTestId("audit");
const created = audit.locator("tr").filter({
  hasText: "RoleBinding carol-operator",
});
await created.first().waitFor();
assert.match(await created.first().innerText(), /create/);
assert.match(await created.first().innerText(), /session/);
await created.first().getByRole("button").click();
const diff = page.getByTestId("diff");
await diff.waitFor();
assert.match(await diff.innerText(), /spec\.role\s+"operator"/);
assert.match(await page.getByTestId("diff-summary").innerText(), /added/);
await page.getByRole("button", { name: "Close" }).click();

const disabled = audit.locator("tr").filter({ hasText: "User carol" })
  .filter({ hasText: "update" });
await disabled.first().getByRole("button").click();
const change = page.getByTestId("diff").locator("tr.diff-changed").filter({
  hasText: "spec.disabled",
});
await change.waitFor();
assert.match(await change.innerText(), /false\s+true/);
// The filters are in the address.
await page.getByLabel("Actor").fill("admin");
await page.getByLabel("Kind").fill("APIToken");
await page.getByRole("button", { name: "Filter" }).click();
await page.waitForURL(/actor=admin&kind=APIToken/);
await audit.locator("tr").filter({ hasText: `APIToken ${id}` }).first()
  .waitFor();
assert.equal(
  await audit.locator("tbody tr").filter({ hasText: "RoleBinding" }).count(),
  0,
);
if (env.screenshots) {
  await page.screenshot({ path: `${env.screenshots}/audit.png` });
}

// Revoked: the token no longer works.
await page.getByRole("link", { name: "API tokens" }).click();
await page.getByRole("button", { name: `Revoke ${id}` }).click();
await page.getByRole("button", { name: "Yes" }).click();
await tokenRow.waitFor({ state: "detached" });
const gone = await fetch(`${env.url}/api/v1/dnszones`, { headers: bearer });
assert.equal(gone.status, 401);
await gone.body?.cancel();

// The admin's own second factor: on with a code, off with the password.
await page.getByRole("link", { name: "Your account" }).click();
const totpState = page.getByTestId("totp-state");
await totpState.filter({ hasText: "TOTP is off" }).waitFor();
await page.getByRole("button", { name: "Set up TOTP" }).click();
const uri = await page.getByTestId("totp-uri").innerText();
assert.match(uri, /^otpauth:\/\/totp\/.*admin/);
const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
assert.equal(
  totp.secret.base32,
  await page.getByTestId("totp-secret").innerText(),
);
await page.getByLabel("Code from the app").fill(totp.generate());
await page.getByRole("button", { name: "Turn TOTP on" }).click();
await totpState.filter({ hasText: "TOTP is on" }).waitFor();
await page.getByLabel("Your current password").fill(env.password);
await page.getByRole("button", { name: "Remove TOTP" }).click();
await totpState.filter({ hasText: "TOTP is off" }).waitFor();

// The admin's sessions: this one and two more, in other browsers.
const elsewhere = async () => {
  const other = await openBrowser();
  await logIn(other.page, env.url, env.password);
  await other.page.getByRole("heading", { name: "Dashboard" }).waitFor();
  return other;
};
const authenticated = async (b: { page: typeof page }) =>
  (await (await b.page.request.get(`${env.url}/api/v1/auth/status`)).json())
    .data.authenticated;
const sessionRows = page.getByTestId("sessions").locator("tbody tr");
await sessionRows.first().waitFor();
const before = await sessionRows.count();
await using second = await elsewhere();
await page.reload();
await sessionRows.nth(before).waitFor();
const mine = sessionRows.filter({ hasText: /This session/ });
assert.equal(await mine.count(), 1);
assert.match(await mine.innerText(), /127\.0\.0\.1/);
assert.match(await mine.innerText(), /Chrome/, "the user agent");
// Newest first: the other browser's session.
const theirs = sessionRows.first();
assert.doesNotMatch(await theirs.innerText(), /This session/);
await theirs.getByRole("button", { name: /^Log out the session from/ })
  .click();
await theirs.getByRole("button", { name: "Yes" }).click();
await page.getByRole("status").filter({
  hasText: "That session is logged out.",
})
  .waitFor();
await sessionRows.nth(before).waitFor({ state: "detached" });
assert.equal(await authenticated(second), false, "the ended session is out");
assert.equal(await authenticated(browser), true, "this one goes on");

await using third = await elsewhere();
await using fourth = await elsewhere();
await page.reload();
await sessionRows.nth(before + 1).waitFor();
await page.getByRole("button", { name: "Log out everywhere else" }).click();
await page.getByRole("status").filter({
  hasText: `${before + 1} other sessions logged out.`,
}).waitFor();
// The list is read again after the status shows.
await sessionRows.nth(1).waitFor({ state: "detached" });
assert.equal(await sessionRows.count(), 1);
assert.equal(await authenticated(third), false);
assert.equal(await authenticated(fourth), false);
assert.equal(await authenticated(browser), true);
assert.deepEqual(await accessibilityProblems(page), [], "the account page");

// A phone.
await page.setViewportSize({ width: 375, height: 800 });
for (const part of ["users", "bindings", "tokens", "account", "audit"]) {
  await page.goto(`${env.url}/access/${part}`);
  await page.locator("main h2").first().waitFor();
  await page.waitForTimeout(300);
  assert.equal(
    await horizontalOverflow(page),
    0,
    `/access/${part} fits 375 px`,
  );
}

// Log out everywhere: this session ends too.
await page.setViewportSize({ width: 1280, height: 900 });
await page.goto(`${env.url}/access/account`);
await page.getByRole("button", { name: "Log out everywhere" }).click();
await page.getByRole("heading", { name: "Log in to kudurru" }).waitFor();
const status = await (await page.request.get(`${env.url}/api/v1/auth/status`))
  .json();
assert.equal(status.data.authenticated, false);

// The viewer sees the settings but no input, no blocking buttons, and of
// the access page only its own tokens and account.
await page.getByLabel("User name").fill("vera");
await page.getByLabel("Password", { exact: true }).fill(VERA_FIRST);
await page.getByRole("button", { name: "Log in" }).click();
await page.getByLabel("Current password").fill(VERA_FIRST);
await page.getByLabel("New password", { exact: true }).fill(VERA);
await page.getByLabel("New password again").fill(VERA);
await page.getByRole("button", { name: "Change the password" }).click();
// Back on the page the address names.
await page.getByRole("heading", { name: "Access", level: 1 }).waitFor();
await page.getByRole("link", { name: "Settings" }).first().click();
await page.getByTestId("setting-cache.negativeTTL").waitFor();
await page.getByTestId("blocking-state").filter({ hasText: "Blocking is on" })
  .waitFor();
assert.equal(
  await page.locator(".setting").locator("input, select, textarea").count(),
  0,
);
assert.equal(
  await page.getByRole("button", { name: /Disable for/ }).count(),
  0,
);
await page.getByRole("link", { name: "Access" }).first().click();
await page.getByRole("heading", { name: "New API token" }).waitFor();
const parts = page.getByRole("navigation", { name: "Access sections" });
assert.deepEqual(await parts.getByRole("link").allInnerTexts(), [
  "API tokens",
  "Your account",
]);
assert.deepEqual(browser.problems, []);
await say("ok");
