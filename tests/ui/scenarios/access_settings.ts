/**
 * The settings page as admin: the keys by section; a key the environment
 * sets is read-only and names its variable; a live key and a key read at
 * start change in one save, the answer says which applied and which wait
 * for a restart, and GET /api/v1/settings agrees; blocking pauses for 5
 * minutes and comes back on; a phone scrolls no sideways.
 */
import assert from "node:assert/strict";
import {
  horizontalOverflow,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
await page.getByRole("link", { name: "Settings" }).first().click();
await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();

// Every key, by section.
const row = (key: string) => page.getByTestId(`setting-${key}`);
await row("cache.maxTTL").waitFor();
const listed = await page.request.get(`${env.url}/api/v1/settings`);
const keys = (await listed.json()).data.settings.length as number;
assert.equal(await page.locator(".setting").count(), keys, "every key shows");
await page.getByRole("heading", { name: "cache", level: 2, exact: true })
  .waitFor();
await page.getByRole("heading", { name: "blocking", level: 2, exact: true })
  .waitFor();

// Set by the environment: read-only, naming the variable.
const locked = row("cache.maxTTL");
assert.match(await locked.innerText(), /12h/);
assert.match(await locked.innerText(), /KUDURRU_CACHE__MAXTTL/);
assert.equal(await locked.locator("input, select, textarea").count(), 0);
// Host-only: read-only too.
assert.match(await row("node.name").innerText(), /kudurru\.yaml on the host/);
assert.equal(await row("node.name").locator("input").count(), 0);

// A live key and one read at start, saved together.
assert.match(await row("cache.negativeTTL").innerText(), /applies at once/);
assert.match(
  await row("blocking.blockTTL").innerText(),
  /applies after a restart/,
);
await page.getByLabel("cache.negativeTTL", { exact: true }).fill("15m");
await page.getByLabel("blocking.blockTTL", { exact: true }).fill("5m");
await page.getByText("2 unsaved changes").waitFor();
await page.getByRole("button", { name: "Save", exact: true }).click();
const saved = page.getByTestId("settings-saved");
await saved.waitFor();
assert.match(await saved.innerText(), /Applied now: cache\.negativeTTL/);
assert.match(
  await saved.innerText(),
  /Applies after a restart: blocking\.blockTTL/,
);
const after = (await (await page.request.get(`${env.url}/api/v1/settings`))
  .json()).data.settings as { key: string; value: unknown; source: string }[];
const negative = after.find((s) => s.key === "cache.negativeTTL")!;
assert.equal(negative.value, "15m");
assert.equal(negative.source, "api");
await row("blocking.blockTTL").getByText("waiting for a restart").waitFor();
assert.match(await row("cache.negativeTTL").innerText(), /From: changed here/);

// A bad value: the API's reason under the key, nothing stored.
await page.getByLabel("cache.negativeTTL", { exact: true }).fill("soon");
await page.getByRole("button", { name: "Save", exact: true }).click();
await row("cache.negativeTTL").locator(".field-error").waitFor();
await page.getByRole("button", { name: "Discard" }).click();
assert.equal(
  await page.getByLabel("cache.negativeTTL", { exact: true }).inputValue(),
  "15m",
);

// The search narrows the keys, and is in the address.
await page.getByLabel("Find a setting").fill("negativeTTL");
await page.waitForURL(/q=negativeTTL/);
assert.equal(await page.locator(".setting").count(), 1);
await page.getByLabel("Find a setting").fill("");

// The blocking switch.
const state = page.getByTestId("blocking-state");
await state.filter({ hasText: "Blocking is on." }).waitFor();
await page.getByRole("button", { name: "Disable for 5 min" }).click();
await state.filter({ hasText: /paused until .* \(by admin\)/ }).waitFor();
const paused = await (await page.request.get(`${env.url}/api/v1/blocking`))
  .json();
assert.equal(paused.data.enabled, false);
assert.ok(
  paused.data.remainingSeconds > 280 && paused.data.remainingSeconds <= 300,
  `a 5-minute pause: ${paused.data.remainingSeconds} s left`,
);
await page.getByRole("button", { name: "Enable" }).click();
await state.filter({ hasText: "Blocking is on." }).waitFor();
const on = await (await page.request.get(`${env.url}/api/v1/blocking`)).json();
assert.equal(on.data.enabled, true);
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/settings.png`,
    fullPage: false,
  });
}

// A phone.
await page.setViewportSize({ width: 375, height: 800 });
await page.reload();
await row("cache.maxTTL").waitFor();
assert.equal(await horizontalOverflow(page), 0, "/settings fits 375 px");
assert.deepEqual(browser.problems, []);
await say("ok");
