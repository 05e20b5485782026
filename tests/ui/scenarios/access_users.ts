/**
 * An admin resets a user's password and deletes a user on the access
 * page: the reset password logs in but must be changed first, the old one
 * no longer does; the deleted user's row goes and its session, open in
 * another browser, stops working.
 */
import assert from "node:assert/strict";
import { logIn, openBrowser, say, scenarioEnv } from "../chromium.ts";

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();

// Two users, each with its own password changed, so neither must change it.
const status = await (await page.request.get(`${env.url}/api/v1/auth/status`))
  .json();
const headers = { "x-kudurru-csrf": status.data.csrf, origin: env.url };
for (const name of ["dora", "eric"]) {
  const made = await page.request.post(`${env.url}/api/v1/users`, {
    data: { name, password: `${name}'s first passphrase` },
    headers,
  });
  assert.equal(made.status(), 201, await made.text());
}
/** Logs `name` in with `password` in a fresh browser (its API context keeps the cookie). */
const login = async (name: string, password: string) => {
  const other = await openBrowser();
  const answer = await other.page.request.post(
    `${env.url}/api/v1/auth/login`,
    { data: { username: name, password } },
  );
  return { other, answer };
};
for (const name of ["dora", "eric"]) {
  const { other, answer } = await login(name, `${name}'s first passphrase`);
  await using _ = other;
  const csrf = (await answer.json()).data.csrf;
  const changed = await other.page.request.post(
    `${env.url}/api/v1/auth/password`,
    {
      data: { current: `${name}'s first passphrase`, new: `${name}'s own` },
      headers: { "x-kudurru-csrf": csrf, origin: env.url },
    },
  );
  assert.equal(changed.status(), 200, await changed.text());
}

await page.goto(`${env.url}/access/users`);
const dora = page.locator('tr[data-user="dora"]');
await dora.waitFor();
assert.doesNotMatch(await dora.innerText(), /must change the password/);

// A reset: the user must change the password at the next login.
await dora.getByRole("button", { name: "Reset password dora" }).click();
await page.getByLabel("New password for dora").fill("dora's reset passphrase");
await page.getByRole("button", { name: "Set the password" }).click();
await page.getByRole("status").filter({
  hasText: "The password of dora is reset",
}).waitFor();
await dora.filter({ hasText: "must change the password" }).waitFor();
const old = await login("dora", "dora's own");
await using _old = old.other;
assert.equal(old.answer.status(), 401, "the old password is refused");
await using doraBrowser = await openBrowser();
await doraBrowser.page.goto(env.url);
await doraBrowser.page.getByLabel("User name").fill("dora");
await doraBrowser.page.getByLabel("Password", { exact: true }).fill(
  "dora's reset passphrase",
);
await doraBrowser.page.getByRole("button", { name: "Log in" }).click();
// Until it is changed, the page to change it is the only one.
await doraBrowser.page.getByLabel("Current password").waitFor();
const refused = await doraBrowser.page.request.get(
  `${env.url}/api/v1/dnszones`,
);
assert.equal(refused.status(), 403, "nothing else before the change");

// A delete: the row goes and the user's open session stops working.
const eric = await login("eric", "eric's own");
await using ericBrowser = eric.other;
assert.equal(eric.answer.status(), 200);
const ericStatus = async () =>
  (await (await ericBrowser.page.request.get(`${env.url}/api/v1/auth/status`))
    .json()).data.authenticated;
assert.equal(await ericStatus(), true);
const ericRow = page.locator('tr[data-user="eric"]');
await ericRow.getByRole("button", { name: "Delete eric" }).click();
await ericRow.getByRole("button", { name: "Yes" }).click();
await page.getByRole("status").filter({ hasText: "User eric deleted." })
  .waitFor();
await ericRow.waitFor({ state: "detached" });
assert.equal(await ericStatus(), false, "the deleted user's session ended");
assert.equal(
  (await ericBrowser.page.request.get(`${env.url}/api/v1/dnszones`)).status(),
  401,
);
assert.deepEqual(browser.problems, []);
await say("ok");
