/**
 * First start: log in with the password kudurru printed, meet the
 * password change before anything else, choose a new one, land on the
 * dashboard; the banner about default credentials is gone.
 */
import assert from "node:assert/strict";
import {
  accessibilityProblems,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;
await page.goto(env.url);
await page.getByRole("heading", { name: "Log in to kudurru" }).waitFor();
assert.deepEqual(await accessibilityProblems(page), [], "the login page");
// The check can fail: an input without a label is a critical violation.
await page.evaluate(`document.querySelector("form").append(
  Object.assign(document.createElement("input"), { id: "unlabelled" }))`);
assert.match(
  (await accessibilityProblems(page)).join("\n"),
  /^label: .*#unlabelled/m,
);
await page.evaluate(`document.getElementById("unlabelled").remove()`);
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
assert.deepEqual(await accessibilityProblems(page), [], "the password page");
await page.getByLabel("Current password").fill(env.password);
await page.getByLabel("New password", { exact: true }).fill(
  "a brand new passphrase",
);
await page.getByLabel("New password again").fill("a brand new passphrase");
await page.getByRole("button", { name: "Change the password" }).click();
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
assert.equal(
  await page.getByText("still has the password kudurru made").count(),
  0,
  "no default-credentials banner after the change",
);
// The new password works; the old one no longer does.
await page.getByRole("button", { name: "Log out" }).click();
await logIn(page, env.url, env.password);
await page.getByRole("alert").getByText("Wrong user name or password")
  .waitFor();
await page.getByLabel("Password", { exact: true }).fill(
  "a brand new passphrase",
);
await page.getByRole("button", { name: "Log in" }).click();
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
assert.deepEqual(browser.problems, []);
await say("ok");
