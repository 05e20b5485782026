/**
 * The login page offers the configured provider below the password form;
 * its button goes to the provider, whose form (oidc-provider's
 * devInteractions: any login, any password) sends the browser back. A
 * user no binding names is back at the login page with the server's
 * reason; alice, whose group is bound, lands on the dashboard as
 * corp:alice.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  accessibilityProblems,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;

async function signInAs(page: Page, login: string) {
  await page.goto(env.url);
  await page.getByRole("heading", { name: "Log in to kudurru" }).waitFor();
  const button = page.getByRole("link", { name: "Sign in with Corp SSO" });
  await button.waitFor();
  await button.click();
  // The provider's own page, on another origin.
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

await page.goto(env.url);
const button = page.getByRole("link", { name: "Sign in with Corp SSO" });
await button.waitFor();
// The password form comes first; the provider's button below it.
const formBox = (await page.locator("form").boundingBox())!;
const buttonBox = (await button.boundingBox())!;
assert.ok(buttonBox.y > formBox.y + formBox.height, "the button is below");
const href = new URL((await button.getAttribute("href"))!, env.url);
assert.equal(href.pathname, "/api/v1/auth/oidc/corp/login");
assert.equal(href.searchParams.get("next"), "/");
assert.deepEqual(await accessibilityProblems(page), [], "the login page");

// bob is known to the provider, but no binding names him or his groups.
await signInAs(page, "bob");
await page.getByRole("heading", { name: "Log in to kudurru" }).waitFor();
await page.getByRole("alert").getByText("corp:bob has no role in kudurru")
  .waitFor();
assert.deepEqual(
  await accessibilityProblems(page),
  [],
  "the login page with an error",
);
// Shown once: a reload shows the plain login page.
await page.reload();
await page.getByRole("link", { name: "Sign in with Corp SSO" }).waitFor();
assert.equal(await page.getByRole("alert").count(), 0, "the error is gone");

// The provider remembers bob: a fresh start for alice.
await browser.context.clearCookies();
await signInAs(page, "alice");
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
await page.getByText("corp:alice", { exact: true }).waitFor();
assert.equal(new URL(page.url()).pathname, "/");
assert.deepEqual(await accessibilityProblems(page), [], "the dashboard");

// Its session is listed like a local user's; TOTP is the provider's.
await page.getByRole("link", { name: "Access" }).click();
await page.getByRole("link", { name: "Your account" }).click();
const rows = page.getByTestId("sessions").locator("tbody tr");
await rows.first().getByText("This session").waitFor();
assert.equal(await rows.count(), 1);
assert.equal(await page.getByRole("heading", { name: /TOTP/ }).count(), 0);
assert.deepEqual(browser.problems, []);
await say("ok");
