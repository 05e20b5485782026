/**
 * Every page of the app, as an admin, wide and on a 375 px phone: it
 * renders its heading, axe-core finds no serious or critical accessibility
 * violation, and on the phone nothing scrolls sideways. And the keyboard:
 * the first Tab reaches "Skip to the content", shown with a visible focus
 * ring, and Enter on it moves focus to the page's content.
 */
import assert from "node:assert/strict";
import {
  accessibilityProblems,
  horizontalOverflow,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const PAGES: [path: string, heading: string | RegExp][] = [
  ["", "Dashboard"],
  ["querylog", "Query log"],
  ["clients/127.0.0.1", "127.0.0.1"],
  ["zones", "Zones"],
  ["zones/home", /home/],
  ["lists", "Block lists"],
  ["groups", "Groups and policies"],
  ["settings", "Settings"],
  ["access", "Access"],
];

const env = scenarioEnv();
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();

await page.goto(`${env.url}/querylog`);
await page.getByRole("heading", { name: "Query log" }).waitFor();
await page.keyboard.press("Tab");
const focused = await page.evaluate(`(() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  return { text: el.textContent, outline: style.outlineStyle,
    width: style.outlineWidth };
})()`) as { text: string; outline: string; width: string };
assert.equal(focused.text, "Skip to the content");
assert.notEqual(focused.outline, "none", "the focus is visible");
assert.notEqual(focused.width, "0px", "the focus is visible");
await page.keyboard.press("Enter");
assert.equal(await page.evaluate(`document.activeElement.id`), "content");

for (const width of [1280, 375]) {
  await page.setViewportSize({ width, height: 900 });
  for (const [path, heading] of PAGES) {
    await page.goto(`${env.url}/${path}`);
    await page.getByRole("heading", { level: 1, name: heading }).first()
      .waitFor();
    // What loads after the heading (lists, charts) is part of the page.
    await page.waitForLoadState("networkidle");
    assert.deepEqual(
      await accessibilityProblems(page),
      [],
      `/${path} at ${width} px`,
    );
    if (width === 375) {
      assert.equal(await horizontalOverflow(page), 0, `/${path} fits 375 px`);
    } else if (env.screenshots) {
      const name = path === "" ? "dashboard" : path.replaceAll("/", "-");
      await page.screenshot({
        path: `${env.screenshots}/page-${name}.png`,
        fullPage: true,
      });
    }
  }
}
assert.deepEqual(browser.problems, []);
await say("ok");
