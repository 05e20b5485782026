/**
 * A viewer (a user the admin made through the API, with a cluster binding
 * to the role viewer) logs in, chooses a password at the first login, and
 * sees the zones and records with no control to change them; a write sent
 * anyway with the viewer's session is refused 403, naming what it lacks.
 */
import assert from "node:assert/strict";
import { request } from "playwright-core";
import { openBrowser, say, scenarioEnv } from "../chromium.ts";

const env = scenarioEnv();
const VIEWER = "viewer1";
const FIRST = "the viewer's first passphrase";
const OWN = "the viewer's own passphrase";

// The admin, through the API: the user, then its binding.
const admin = await request.newContext({ baseURL: env.url });
const login = await admin.post("/api/v1/auth/login", {
  data: { username: "admin", password: env.password },
});
assert.equal(login.status(), 200, await login.text());
const adminCsrf = { "x-kudurru-csrf": (await login.json()).data.csrf };
const user = await admin.post("/api/v1/users", {
  headers: adminCsrf,
  data: { name: VIEWER, password: FIRST },
});
assert.equal(user.status(), 201, await user.text());
const binding = await admin.post("/api/v1/rolebindings", {
  headers: adminCsrf,
  data: {
    name: `${VIEWER}-viewer`,
    role: "viewer",
    subjects: [{ kind: "User", name: VIEWER }],
  },
});
assert.equal(binding.status(), 201, await binding.text());
await admin.dispose();

await using browser = await openBrowser();
const { page } = browser;
await page.goto(env.url);
await page.getByLabel("User name").fill(VIEWER);
await page.getByLabel("Password", { exact: true }).fill(FIRST);
await page.getByRole("button", { name: "Log in" }).click();
await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
await page.getByLabel("Current password").fill(FIRST);
await page.getByLabel("New password", { exact: true }).fill(OWN);
await page.getByLabel("New password again").fill(OWN);
await page.getByRole("button", { name: "Change the password" }).click();
await page.getByRole("heading", { name: "Dashboard" }).waitFor();

// The zones, read-only: no new zone.
await page.getByRole("navigation").getByRole("link", { name: "Zones" }).click();
await page.getByRole("heading", { name: "Zones", exact: true }).waitFor();
const home = page.getByTestId("zones").getByRole("row").filter({
  hasText: "home.test.",
});
await home.waitFor();
assert.equal(await page.getByRole("button", { name: "New zone" }).count(), 0);

// One zone: its records and the export, and nothing that writes.
await home.getByRole("link", { name: "home" }).click();
await page.getByRole("heading", { name: "home.test." }).waitFor();
await page.getByTestId("records").getByRole("row").filter({
  hasText: "nas.home.test.",
}).waitFor();
await page.getByRole("link", { name: "Download the zone file" }).waitFor();
for (const name of ["Add", "Remove", "Edit", "Delete the zone", "Check"]) {
  assert.equal(
    await page.getByRole("button", { name, exact: true }).count(),
    0,
    `no ${name} button`,
  );
}
assert.equal(await page.getByRole("form", { name: "Add a record" }).count(), 0);
assert.equal(
  await page.getByRole("form", { name: "Import a zone file" }).count(),
  0,
);

// The API refuses the write anyway, saying what is missing.
const status = await page.request.get(`${env.url}/api/v1/auth/status`);
const { csrf, user: who } = (await status.json()).data;
assert.equal(who, VIEWER);
const write = await page.request.post(
  `${env.url}/api/v1/dnszones/home/records`,
  {
    headers: { "x-kudurru-csrf": csrf },
    data: { name: "sneaky.home.test.", type: "A", data: "192.168.1.66" },
  },
);
assert.equal(write.status(), 403);
const refused = (await write.json()).error;
assert.equal(refused.key, "forbidden");
assert.deepEqual(refused.missing, {
  resource: "dnsrecordsets",
  verb: "create",
  scope: "zone:home",
});
const listed = await page.request.get(
  `${env.url}/api/v1/dnszones/home/records?name=sneaky.home.test.`,
);
assert.deepEqual((await listed.json()).data.items, []);
assert.deepEqual(browser.problems, []);
await say("ok");
