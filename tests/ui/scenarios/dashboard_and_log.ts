/**
 * The dashboard's tiles say what the API says; a dig shows in the live
 * query log within 2 s; a blocked query's row shows the Extended DNS Error
 * its answer carried; on a 375 px phone nothing scrolls sideways.
 */
import assert from "node:assert/strict";
import {
  accessibilityProblems,
  dig,
  horizontalOverflow,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";
import { query } from "../../../src/testing/dns_client.ts";

const env = scenarioEnv();
for (let i = 0; i < 3; i++) {
  assert.equal((await dig(env.dnsPort, "nas.home.test.")).status, "NOERROR");
}
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();

// The tiles against GET /api/v1/stats for the same window, once both agree
// on what the log holds (the writer flushes every second).
const digits = (text: string | null) => Number((text ?? "").replace(/\D/g, ""));
let api = 0;
let shown = -1;
for (let attempt = 0; attempt < 20 && (api < 3 || api !== shown); attempt++) {
  if (attempt > 0) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  await page.getByTestId("tile-queries").filter({ hasText: /\d/ }).waitFor();
  shown = digits(await page.getByTestId("tile-queries").textContent());
  const stats = await page.request.get(`${env.url}/api/v1/stats?since=24h`);
  api = (await stats.json()).data.totals.queries;
}
assert.ok(api >= 3, `the API counts the digs: ${api}`);
assert.equal(shown, api, "the queries tile says what the API says");
const clients = await page.request.get(`${env.url}/api/v1/stats?since=24h`);
const totals = (await clients.json()).data.totals;
assert.equal(
  digits(await page.getByTestId("tile-clients").textContent()),
  totals.clients,
);
assert.equal(
  digits(await page.getByTestId("tile-forwarded").textContent()),
  totals.forwarded,
);
assert.deepEqual(await accessibilityProblems(page), [], "the dashboard");
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/dashboard.png`,
    fullPage: true,
  });
}

// Live: the query log follows new queries.
await page.getByRole("link", { name: "Query log" }).first().click();
await page.getByRole("heading", { name: "Query log" }).waitFor();
await page.getByTestId("live-state").filter({ hasText: "Live" }).waitFor();
// The tail is open once the first page is in (it starts right after).
await page.locator("table[data-testid=querylog] tbody tr").first().waitFor();
await page.waitForTimeout(300);
const asked = Date.now();
assert.equal(
  (await dig(env.dnsPort, "live-check.home.test.")).status,
  "NXDOMAIN",
);
await page.getByText("live-check.home.test.").first().waitFor({
  timeout: 2000,
});
const seenAfter = Date.now() - asked;
await say(`live row after ${seenAfter} ms`);

// A row opens its detail.
await page.getByRole("button", { name: /\d\d:\d\d/ }).first().click();
await page.getByRole("region", { name: "Why this answer" }).waitFor();
// What decides it now, from GET /api/v1/why: the policy and the zone.
await page.getByRole("button", { name: "How kudurru would answer it now" })
  .click();
const now = page.getByRole("region", {
  name: "How kudurru would answer it now",
});
await now.getByText("default/default").first().waitFor();
await now.getByText("home.test.").first().waitFor();
assert.deepEqual(await accessibilityProblems(page), [], "the query log");
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/querylog.png`,
    fullPage: true,
  });
}

// Paused: a new query does not show until resumed.
await page.getByRole("button", { name: "Pause" }).click();
await page.getByTestId("live-state").filter({ hasText: "Paused" }).waitFor();
assert.equal(
  (await dig(env.dnsPort, "while-paused.home.test.")).status,
  "NXDOMAIN",
);
await page.waitForTimeout(1500);
assert.equal(await page.getByText("while-paused.home.test.").count(), 0);
await page.getByRole("button", { name: "Resume" }).click();
await page.getByText("while-paused.home.test.").first().waitFor({
  timeout: 5000,
});

// A blocked query (the starter list has doubleclick.net): its row says
// what Extended DNS Error the answer carried. Over TCP: UDP sockets need
// --unstable-net, which scenarios do not run with.
const blocked = await query(env.dnsPort, "doubleclick.net.", "A", {
  edns: true,
  tcp: true,
});
const opt = blocked.additionals.find((r) => r.type === "OPT");
// dns-packet leaves the EDE option (15) undecoded: INFO-CODE then text.
const option = (opt as { options?: { code: number; data: Uint8Array }[] })
  ?.options?.find((o) => o.code === 15);
assert.ok(option, "the blocked answer carries an Extended DNS Error");
const infoCode = (option.data[0]! << 8) | option.data[1]!;
const text = new TextDecoder().decode(option.data.subarray(2));
assert.equal(infoCode, 15);
assert.match(text, /^blocked by starter$/);
// The log is written every second: reload until its row is in.
await page.goto(`${env.url}/querylog?domain=doubleclick.net`);
const blockedRow = page.getByRole("button", { name: /\d\d:\d\d/ }).first();
for (let i = 0; i < 20 && await blockedRow.count() === 0; i++) {
  await page.waitForTimeout(500);
  await page.reload();
  await page.getByRole("heading", { name: "Query log" }).waitFor();
}
await blockedRow.click();
const detail = page.getByRole("region", { name: "Why this answer" });
await detail.getByText("Extended DNS Error").waitFor();
assert.equal(
  await detail.locator("dt", { hasText: "Extended DNS Error" })
    .locator("+ dd").innerText(),
  `${infoCode} Blocked: ${text}`,
);
assert.deepEqual(await accessibilityProblems(page), [], "a blocked row");

// A phone.
await page.setViewportSize({ width: 375, height: 800 });
for (const path of ["", "querylog"]) {
  await page.goto(`${env.url}/${path}`);
  await page.locator("main h1").waitFor();
  await page.waitForTimeout(300);
  assert.equal(await horizontalOverflow(page), 0, `/${path} fits 375 px`);
  assert.deepEqual(await accessibilityProblems(page), [], `/${path} at 375 px`);
}
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/querylog-phone.png`,
    fullPage: true,
  });
}
assert.deepEqual(browser.problems, []);
await say("ok");
