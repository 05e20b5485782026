/**
 * Blocking a name from its query-log row makes the next dig blocked, and
 * undo makes it resolve again (the upstream answers 203.0.113.7; zones of
 * kudurru's own are not blocked, so the name is forwarded); the client's
 * page shows its queries.
 */
import assert from "node:assert/strict";
import {
  accessibilityProblems,
  dig,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
const NAME = "www.example.test";
const answerOf = async () => {
  const { status, text } = await dig(env.dnsPort, `${NAME}.`);
  const address = /^www\.example\.test\.\s+\d+\s+IN\s+A\s+(\S+)/m.exec(text)
    ?.[1];
  return `${status} ${address ?? "-"}`;
};
/** Asks until the answer is `want` (the snapshot is rebuilt in the background). */
const answers = async (want: string) => {
  let got = "";
  for (let i = 0; i < 50 && got !== want; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 200));
    got = await answerOf();
  }
  assert.equal(got, want);
};

await answers("NOERROR 203.0.113.7");
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
await page.goto(`${env.url}/querylog?domain=${NAME}`);
const row = page.getByRole("button", { name: /\d\d:\d\d/ }).first();
await row.waitFor();
await row.click();
await page.getByRole("button", { name: `Block ${NAME} everywhere` }).click();
await page.getByText(`${NAME} is now blocked everywhere.`).waitFor();
await answers("NOERROR 0.0.0.0");

await page.getByRole("button", { name: "Undo" }).click();
await page.getByText("Undone.").waitFor();
await answers("NOERROR 203.0.113.7");

// The client's page: its queries, and the policy that applies to it now.
await page.goto(`${env.url}/clients/127.0.0.1`);
await page.getByRole("heading", { name: "127.0.0.1" }).waitFor();
await page.getByTestId("client-policies").filter({ hasText: "default/default" })
  .waitFor();
// The log is written every second: compare once both have caught up.
let shown = -1;
let api = 0;
for (let attempt = 0; attempt < 20 && (api < 3 || shown !== api); attempt++) {
  if (attempt > 0) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  const tile = page.getByTestId("client-queries");
  await tile.filter({ hasText: /\d/ }).waitFor();
  shown = Number((await tile.textContent())?.replace(/\D/g, ""));
  const stats = await page.request.get(
    `${env.url}/api/v1/stats/clients/127.0.0.1?since=24h`,
  );
  api = (await stats.json()).data.queries;
}
assert.ok(api >= 3, `the client's digs are counted: ${api}`);
assert.equal(shown, api, "the client page says what the API says");
assert.deepEqual(await accessibilityProblems(page), [], "the client's page");
assert.deepEqual(browser.problems, []);
await say("ok");
