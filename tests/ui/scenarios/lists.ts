/**
 * As admin: the starter list shows the rule count the API gives; a list
 * typed in the UI, attached to the default policy in the policy editor,
 * blocks a dig (0.0.0.0, the default block mode) within seconds; the why
 * tool names the list; a schedule edited in the UI is what the API
 * returns; a member added shows in its group with what it gets now; a
 * group a file manages is read-only. A viewer sees the pages without the
 * controls it may not use; a phone scrolls no sideways.
 */
import assert from "node:assert/strict";
import {
  dig,
  horizontalOverflow,
  logIn,
  openBrowser,
  say,
  scenarioEnv,
} from "../chromium.ts";

const env = scenarioEnv();
const NAME = "blocked-by-ui.home.test";
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();
const api = async (path: string) => {
  const answer = await page.request.get(`${env.url}/api/v1/${path}`);
  assert.ok(answer.ok(), `GET ${path}: ${answer.status()}`);
  return (await answer.json()).data;
};

// The starter list, with the API's rule count.
await page.getByRole("link", { name: "Block lists" }).first().click();
await page.getByRole("heading", { name: "Block lists", level: 1 }).waitFor();
const starter = page.getByTestId("blocklist-default/starter");
await starter.getByTestId("rule-total").filter({ hasText: /\d/ }).waitFor();
const stored = await api("namespaces/default/blocklists/starter");
const rules = stored.status.sources.reduce(
  (n: number, s: { ruleCount?: number }) => n + (s.ruleCount ?? 0),
  0,
);
assert.ok(rules > 100, `the starter list has rules: ${rules}`);
const digits = (text: string | null) => Number((text ?? "").replace(/\D/g, ""));
assert.equal(
  digits(await starter.getByTestId("rule-total").textContent()),
  rules,
);
await starter.getByText("Made by kudurru at the first start").waitFor();

// A list typed in the UI.
const add = page.getByRole("region", { name: "Add a list" });
await add.getByLabel("Rules typed here").check();
await add.getByLabel("Rules, one per line").fill(`${NAME}\n`);
await add.getByLabel("Name", { exact: true }).fill("UI test");
await add.getByRole("button", { name: "Add the list" }).click();
await add.getByText("Lowercase letters, digits").waitFor();
// An error in a label is part of its name: the input by its name.
await add.locator('input[name="name"]').fill("ui-test");
await add.getByRole("button", { name: "Add the list" }).click();
await add.getByRole("status").filter({ hasText: "Added ui-test." }).waitFor();
const added = page.getByTestId("blocklist-default/ui-test");
await added.getByTestId("rule-total").filter({ hasText: "1 rule" }).waitFor({
  timeout: 10_000,
});
await added.getByText("Ready", { exact: true }).waitFor();

// Attached to the default policy in the policy editor.
await page.getByRole("link", { name: "Groups and policies" }).first().click();
await page.getByRole("heading", { name: "Groups and policies" }).waitFor();
const policy = page.getByTestId("policy-default/default");
await policy.getByRole("button", { name: "Edit policy default" }).click();
await policy.getByRole("group", { name: "Block lists" }).getByLabel("ui-test")
  .check();
await policy.getByRole("button", { name: "Save" }).click();
await policy.getByRole("button", { name: "Edit policy default" }).waitFor();
const saved = await api("namespaces/default/policies/default");
assert.deepEqual(saved.spec.blockListRefs, ["starter", "ui-test"]);
assert.equal(saved.metadata.managedBy, "api");

// dig: blocked once the data plane has the new snapshot.
let answer = "";
for (let i = 0; i < 25; i++) {
  const { status, text } = await dig(env.dnsPort, NAME);
  answer = text;
  if (status === "NOERROR" && /\sA\s+0\.0\.0\.0\b/.test(text)) break;
  answer = "";
  await page.waitForTimeout(200);
}
assert.ok(answer !== "", `${NAME} is answered 0.0.0.0 (blocked)`);

// The why tool names the list; name and client are in the URL.
await page.getByRole("link", { name: "Block lists" }).first().click();
const why = page.getByRole("form", { name: "Why this answer?" });
await why.getByLabel("Name").fill(NAME);
await why.getByLabel("Client address").fill("127.0.0.1");
await why.getByRole("button", { name: "Explain" }).click();
const result = page.getByTestId("why");
await result.getByText("blocked by list ui-test, rule").waitFor();
await result.getByText("default/ui-test").waitFor();
const url = new URL(page.url());
assert.equal(url.searchParams.get("name"), NAME);
assert.equal(url.searchParams.get("client"), "127.0.0.1");
await page.reload();
await page.getByTestId("why").getByText("blocked by list ui-test").waitFor();

// A new policy; its schedule edited in the editor.
await page.getByRole("link", { name: "Groups and policies" }).first().click();
const newPolicy = page.getByRole("form", { name: "New policy" });
await newPolicy.getByLabel("Name", { exact: true }).fill("evenings");
await newPolicy.getByRole("button", { name: "Create the policy" }).click();
const evenings = page.getByTestId("policy-default/evenings");
await evenings.getByRole("group", { name: "Client groups" }).getByLabel(
  "default",
).check();
await evenings.getByLabel("Only at certain times").check();
for (const day of ["Mon", "Tue", "Wed", "Thu", "Fri"]) {
  await evenings.getByRole("group", { name: "Days" }).getByLabel(day).uncheck();
}
await evenings.getByLabel("From", { exact: true }).fill("20:00");
await evenings.getByLabel("Until", { exact: true }).fill("07:00");
await evenings.getByLabel("Time zone").fill("Mars/Olympus");
await evenings.getByRole("button", { name: "Save" }).click();
// The API's 422 under the field.
await evenings.locator(".field-error", { hasText: "IANA time zone" }).waitFor();
await evenings.locator('input[name="tz"]').fill("Europe/Berlin");
await evenings.getByRole("button", { name: "Save" }).click();
await evenings.getByText("Sat, Sun, 20:00–07:00 (Europe/Berlin)").waitFor();
const scheduled = await api("namespaces/default/policies/evenings");
assert.deepEqual(scheduled.spec.schedule, {
  weekdays: ["sat", "sun"],
  start: "20:00",
  end: "07:00",
  tz: "Europe/Berlin",
});
assert.deepEqual(scheduled.spec.clientGroupRefs, ["default"]);

// A group and a member: a narrower group takes its clients out of default.
const newGroup = page.getByRole("form", { name: "New client group" });
await newGroup.getByLabel("Name", { exact: true }).fill("kids");
await newGroup.getByRole("button", { name: "Create the group" }).click();
const kids = page.getByTestId("group-default/kids");
await kids.getByText("No members").waitFor();
await kids.getByLabel("Member", { exact: true }).fill("192.168.1.128/99");
await kids.getByRole("button", { name: "Add the member" }).click();
await kids.getByText("Not a network").waitFor();
await kids.locator('input[name="member"]').fill("192.168.1.128/26");
await kids.getByLabel("Label (optional)").fill("tablets");
await kids.getByRole("button", { name: "Add the member" }).click();
await kids.getByRole("cell", { name: "192.168.1.128/26", exact: true })
  .waitFor();
await kids.getByTestId("group-now").getByText(
  "A client at 192.168.1.129 gets no policy",
).waitFor();
const group = await api("namespaces/default/clientgroups/kids");
assert.deepEqual(group.spec.clients, [
  { cidr: "192.168.1.128/26", name: "tablets" },
]);
// Added and removed.
await kids.locator('input[name="member"]').fill("192.168.1.20");
await kids.getByRole("button", { name: "Add the member" }).click();
await kids.getByRole("button", { name: "Remove 192.168.1.20" }).click();
await kids.getByRole("button", { name: "Remove 192.168.1.20" }).waitFor({
  state: "detached",
});
assert.equal(
  (await api("namespaces/default/clientgroups/kids")).spec.clients.length,
  1,
);
await page.getByTestId("group-default/default").getByTestId("group-now")
  .getByText("default/ui-test").waitFor();

// A group a file manages: read-only, saying which file.
const office = page.getByTestId("group-default/office");
await office.getByText(/Managed by file \S*corpus\.yaml: change it there/)
  .waitFor();
await office.getByRole("cell", { name: "office lan" }).waitFor();
assert.equal(await office.getByRole("button").count(), 0);

// A phone.
await page.setViewportSize({ width: 375, height: 800 });
for (const path of ["lists", "groups", "groups?policy=default/default"]) {
  await page.goto(`${env.url}/${path}`);
  await page.locator("main h1").waitFor();
  await page.waitForTimeout(300);
  assert.equal(await horizontalOverflow(page), 0, `/${path} fits 375 px`);
}
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/groups-phone.png`,
    fullPage: true,
  });
}
assert.deepEqual(browser.problems, []);

// A viewer: the same pages, without the controls.
const write = async (path: string, body: unknown) => {
  const status = await page.request.get(`${env.url}/api/v1/auth/status`);
  const csrf = (await status.json()).data.csrf;
  const answer = await page.request.post(`${env.url}/api/v1/${path}`, {
    data: body,
    headers: { "x-kudurru-csrf": csrf, origin: env.url },
  });
  assert.ok(answer.ok(), `POST ${path}: ${await answer.text()}`);
};
const first = "a viewer's first passphrase";
await write("users", { name: "vera", password: first });
await write("rolebindings", {
  name: "vera-viewer",
  role: "viewer",
  subjects: [{ kind: "User", name: "vera" }],
});
await using viewerBrowser = await openBrowser();
const viewer = viewerBrowser.page;
await viewer.goto(env.url);
await viewer.getByLabel("User name").fill("vera");
await viewer.getByLabel("Password", { exact: true }).fill(first);
await viewer.getByRole("button", { name: "Log in" }).click();
await viewer.getByLabel("Current password").fill(first);
await viewer.getByLabel("New password", { exact: true }).fill(
  "a viewer's own passphrase",
);
await viewer.getByLabel("New password again").fill(
  "a viewer's own passphrase",
);
await viewer.getByRole("button", { name: "Change the password" }).click();
await viewer.getByRole("heading", { name: "Dashboard" }).waitFor();
await viewer.goto(`${env.url}/lists`);
await viewer.getByTestId("blocklist-default/ui-test").getByTestId("rule-total")
  .waitFor();
assert.equal(
  await viewer.getByRole("heading", { name: "Add a list" }).count(),
  0,
);
assert.equal(await viewer.getByRole("button", { name: "Delete" }).count(), 0);
assert.equal(await viewer.getByRole("checkbox").count(), 0);
await viewer.getByRole("form", { name: "Why this answer?" }).waitFor();
await viewer.goto(`${env.url}/groups?policy=default/default`);
await viewer.getByTestId("policy-default/evenings").waitFor();
assert.equal(
  await viewer.getByRole("button", { name: /Edit|Delete|Add|Create|Remove/ })
    .count(),
  0,
);
assert.equal(await viewer.getByRole("button", { name: "Save" }).count(), 0);
assert.deepEqual(viewerBrowser.problems, []);
await say("ok");
