/**
 * An admin edits the home zone in the browser: a record added in the
 * editor is answered by dig; a bad one shows the API's message under its
 * field and adds nothing; a name a file declares says who manages it; an
 * import checks first and reports the lines it skips; the export
 * downloads the zone file. A new zone's SOA is edited (a bad value named
 * under its field; a change made in between is a conflict), then the zone
 * is deleted. On a 375 px phone nothing scrolls sideways.
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
await using browser = await openBrowser();
const { page } = browser;
await logIn(page, env.url, env.password);
await page.getByRole("heading", { name: "Dashboard" }).waitFor();

// The list: home with its zone name, ready, and a link to its page.
await page.getByRole("navigation").getByRole("link", { name: "Zones" }).click();
await page.getByRole("heading", { name: "Zones", exact: true }).waitFor();
const homeRow = page.getByTestId("zones").getByRole("row").filter({
  hasText: "home.test.",
});
await homeRow.waitFor();
assert.match(await homeRow.textContent() ?? "", /primary.*Ready/);
await homeRow.getByRole("link", { name: "home" }).click();
await page.getByRole("heading", { name: "home.test." }).waitFor();
assert.match(new URL(page.url()).pathname, /\/zones\/home$/);

// The file's record is read-only: no remove button, and who manages it.
const records = page.getByTestId("records");
const nas = records.getByRole("row").filter({ hasText: "nas.home.test." });
await nas.waitFor();
assert.match(await nas.textContent() ?? "", /managed by file objects\.d\//);
assert.equal(await nas.getByRole("button").count(), 0);

// Add printer.home.test. A 192.168.1.20; the hint says what A data is.
const add = page.getByRole("form", { name: "Add a record" });
const dataHint = add.locator("#zone-add-data-hint");
await add.getByRole("combobox", { name: "Type" }).fill("MX");
assert.match(await dataHint.textContent() ?? "", /10 mail\.example\.com\./);
await add.getByRole("combobox", { name: "Type" }).fill("A");
assert.match(await dataHint.textContent() ?? "", /IPv4/);
await add.getByRole("textbox", { name: "Name" }).fill("printer.home.test.");
await add.getByRole("textbox", { name: "Data" }).fill("192.168.1.20");
await add.getByRole("button", { name: "Add", exact: true }).click();
await page.getByRole("status").filter({
  hasText: "Added printer.home.test. A 192.168.1.20.",
}).waitFor();
await records.getByRole("row").filter({ hasText: "printer.home.test." })
  .waitFor();

// dig answers it once the zone's snapshot has it (within a few seconds).
let answer = "";
for (let i = 0; i < 25 && !answer.includes("192.168.1.20"); i++) {
  if (i > 0) await new Promise((r) => setTimeout(r, 200));
  const { status, text } = await dig(env.dnsPort, "printer.home.test.");
  answer = status === "NOERROR" ? text : "";
}
assert.match(answer, /printer\.home\.test\.\s+\d+\s+IN\s+A\s+192\.168\.1\.20/);

// A bad record: the API's message under the data field, nothing added.
await add.getByRole("textbox", { name: "Name" }).fill("bad.home.test.");
await add.getByRole("textbox", { name: "Data" }).fill("not-an-ip");
await add.getByRole("button", { name: "Add", exact: true }).click();
const dataError = add.locator("#zone-add-data-error");
await dataError.waitFor();
assert.match(
  await dataError.textContent() ?? "",
  /"not-an-ip" is not a dotted-quad IPv4 address/,
);
assert.equal(
  await add.getByRole("textbox", { name: "Data" }).getAttribute(
    "aria-invalid",
  ),
  "true",
);
assert.equal(await add.getByRole("alert").count(), 0, "no box repeats it");
const bad = await page.request.get(
  `${env.url}/api/v1/dnszones/home/records?name=bad.home.test.`,
);
assert.deepEqual((await bad.json()).data.items, []);
assert.equal(
  await records.getByRole("row").filter({ hasText: "bad.home.test." }).count(),
  0,
);

// A name and type the file declares: the API's managed_by, with its hint.
await add.getByRole("textbox", { name: "Name" }).fill("nas.home.test.");
await add.getByRole("textbox", { name: "Data" }).fill("192.168.1.11");
await add.getByRole("button", { name: "Add", exact: true }).click();
const managed = add.getByRole("alert");
await managed.waitFor();
assert.match(
  await managed.textContent() ?? "",
  /is managed by file objects\.d\/.*Hint: edit objects\.d\//,
);
assert.equal(await add.locator(".field-error").count(), 0);

// Import: a check first (the report names each skipped line and why),
// then the import itself.
const zoneText = [
  "$ORIGIN home.test.",
  "web 600 IN A 192.168.1.30",
  'chaos CH TXT "hi"',
  "outside.example. IN A 192.0.2.1",
  "",
].join("\n");
const importForm = page.getByRole("form", { name: "Import a zone file" });
await importForm.getByLabel("Zone file text").fill(zoneText);
await importForm.getByRole("button", { name: "Check" }).click();
const report = page.getByTestId("import-report");
await report.getByText("What an import would do").waitFor();
const reportText = await report.textContent() ?? "";
assert.match(reportText, /1 records to add, 0 there already/);
assert.match(reportText, /2 lines skipped/);
assert.match(reportText, /class CH is not served/);
assert.match(reportText, /outside the zone home\.test\./);
assert.equal(
  await records.getByRole("row").filter({ hasText: "web.home.test." }).count(),
  0,
  "a check writes nothing",
);
await importForm.getByRole("button", { name: "Import", exact: true }).click();
await report.getByText("What the import did").waitFor();
await records.getByRole("row").filter({ hasText: "web.home.test." }).waitFor();

// Export: the download is the zone file, with what was added.
const [download] = await Promise.all([
  page.waitForEvent("download"),
  page.getByRole("link", { name: "Download the zone file" }).click(),
]);
assert.equal(download.suggestedFilename(), "home.test.zone");
const exported = await Deno.readTextFile(await download.path());
assert.match(exported, /^\$ORIGIN home\.test\.$/m);
assert.match(
  exported,
  /printer\.home\.test\.\s+300\s+IN\s+A\s+192\.168\.1\.20/,
);
assert.match(exported, /web\.home\.test\.\s+600\s+IN\s+A\s+192\.168\.1\.30/);

// Remove printer: the row goes, and the API no longer lists it.
await records.getByRole("button", {
  name: "Remove printer.home.test. A 192.168.1.20",
}).click();
await page.getByRole("status").filter({
  hasText: "Removed printer.home.test. A 192.168.1.20.",
}).waitFor();
await records.getByRole("row").filter({ hasText: "printer.home.test." })
  .waitFor({ state: "detached" });

// On a phone the zone page fits: rows become cards.
await page.setViewportSize({ width: 375, height: 800 });
await page.waitForTimeout(100);
assert.equal(await horizontalOverflow(page), 0, "zone page at 375 px");
if (env.screenshots) {
  await page.screenshot({
    path: `${env.screenshots}/zone-phone.png`,
    fullPage: true,
  });
}
await page.setViewportSize({ width: 1280, height: 900 });

// Pages of 100 records: the rest comes with "More records".
const session = await page.request.get(`${env.url}/api/v1/auth/status`);
const csrf = (await session.json()).data.csrf as string;
const hosts = Array.from(
  { length: 120 },
  (_, i) => `host${i} IN A 10.0.0.${i + 1}`,
);
const bulk = await page.request.post(
  `${env.url}/api/v1/dnszones/home/zonefile`,
  {
    headers: { "content-type": "text/plain", "x-kudurru-csrf": csrf },
    data: `$ORIGIN home.test.\n${hosts.join("\n")}\n`,
  },
);
assert.equal(bulk.status(), 200, await bulk.text());
await page.reload();
const rows = records.locator("tbody tr");
await rows.nth(99).waitFor();
assert.equal(await rows.count(), 100);
await page.getByRole("button", { name: "More records" }).click();
await rows.nth(121).waitFor();
assert.equal(await rows.count(), 122, "120 hosts, nas and web");
assert.equal(
  await page.getByRole("button", { name: "More records" }).count(),
  0,
);

// A new zone, then its SOA edited.
await page.getByRole("link", { name: "All zones" }).click();
await page.getByRole("button", { name: "New zone" }).click();
const create = page.getByRole("region", { name: "New zone" });
await create.getByRole("textbox", { name: "Zone", exact: true }).fill(
  "lab.test",
);
await create.getByRole("textbox", { name: "Object name" }).fill("lab");
await create.getByLabel("Primary name server (mname)").fill("ns.lab.test");
await create.getByLabel("Responsible mailbox (rname)").fill("admin.lab.test.");
await create.getByLabel("Refresh (s)").fill("30");
await create.getByRole("button", { name: "Create the zone" }).click();
// The API's message, under the field it names.
await create.getByText("must be at least 60").waitFor();
await create.getByLabel("Refresh (s)").fill("");
await create.getByRole("button", { name: "Create the zone" }).click();
await page.getByRole("heading", { name: "lab.test." }).waitFor();
assert.match(new URL(page.url()).pathname, /\/zones\/lab$/);
const details = page.getByTestId("zone-details");
await details.getByText("ns.lab.test. admin.lab.test. 3600").waitFor();

await page.getByRole("button", { name: "Edit" }).click();
await page.getByLabel("Refresh (s)").fill("7200");
await page.getByRole("button", { name: "Save" }).click();
await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
await details.getByText("ns.lab.test. admin.lab.test. 7200").waitFor();

// Changed elsewhere after the page read it: 409 conflict, with its message;
// reading it again lets the same edit through.
await page.getByRole("button", { name: "Edit" }).click();
const elsewhere = await page.request.patch(`${env.url}/api/v1/dnszones/lab`, {
  headers: {
    "content-type": "application/merge-patch+json",
    "x-kudurru-csrf": csrf,
  },
  data: JSON.stringify({ spec: { defaultTTL: 600 } }),
});
assert.equal(elsewhere.status(), 200);
await page.getByLabel("Retry (s)").fill("1800");
await page.getByRole("button", { name: "Save" }).click();
const conflict = page.getByRole("alert").filter({ hasText: "was changed" });
await conflict.waitFor();
assert.match(await conflict.textContent() ?? "", /Hint: read the object again/);
await conflict.getByRole("button", { name: "Try again" }).click();
await conflict.waitFor({ state: "detached" });
await page.getByRole("button", { name: "Save" }).click();
await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
await details.getByText("ns.lab.test. admin.lab.test. 7200 1800").waitFor();
const lab = await page.request.get(`${env.url}/api/v1/dnszones/lab`);
const labSpec = (await lab.json()).data.spec;
assert.equal(labSpec.soa.retry, 1800);
assert.equal(labSpec.defaultTTL, 600, "the change made elsewhere stays");

// Delete it: back on the list, without it.
await page.getByRole("button", { name: "Delete the zone" }).click();
await page.getByRole("button", { name: "Delete it" }).click();
await page.getByRole("heading", { name: "Zones", exact: true }).waitFor();
await homeRow.waitFor();
assert.equal(
  await page.getByTestId("zones").getByRole("row").filter({
    hasText: "lab.test.",
  }).count(),
  0,
);

// A secondary zone: where it comes from, and no records to edit here.
const secondary = await page.request.post(`${env.url}/api/v1/dnszones`, {
  headers: { "x-kudurru-csrf": csrf },
  data: {
    metadata: { name: "mirror" },
    spec: {
      zoneName: "mirror.test.",
      type: "secondary",
      secondary: { primaries: ["127.0.0.1:9"] },
    },
  },
});
assert.equal(secondary.status(), 201);
await page.goto(`${env.url}/zones/mirror`);
const mirror = page.getByTestId("zone-details");
await mirror.getByText("Transferred from").waitFor();
await mirror.getByText("127.0.0.1:9", { exact: true }).waitFor();
await page.getByText("A secondary zone's records come from its primaries")
  .waitFor();
assert.equal(await page.getByRole("button", { name: "Add" }).count(), 0);
await page.goto(`${env.url}/zones`);
await homeRow.waitFor();

await page.setViewportSize({ width: 375, height: 800 });
await page.waitForTimeout(100);
assert.equal(await horizontalOverflow(page), 0, "zones list at 375 px");
assert.deepEqual(browser.problems, []);
await say("ok");
