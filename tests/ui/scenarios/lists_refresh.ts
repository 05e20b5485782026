/**
 * "Refresh now" on a list whose source is slower than the refresh route
 * waits (the route answers 202): the card says it is still downloading.
 */
import { logIn, openBrowser, say, scenarioEnv } from "../chromium.ts";

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
await page.goto(`${env.url}/lists`);
const slow = page.getByTestId("blocklist-default/slow");
// The first download was quick: the list has its rule.
await slow.getByTestId("rule-total").filter({ hasText: "1 rule" }).waitFor({
  timeout: 20_000,
});
const answered = page.waitForResponse((r) => r.url().endsWith("slow:refresh"));
await slow.getByRole("button", { name: "Refresh now" }).click();
const refresh = await answered;
if (refresh.status() !== 202) {
  throw new Error(`the refresh answered ${refresh.status()}, not 202`);
}
await slow.getByRole("status").filter({
  hasText: "Still downloading: the list's status will show the outcome.",
}).waitFor();
if (browser.problems.length > 0) throw new Error(browser.problems.join("\n"));
await say("ok");
