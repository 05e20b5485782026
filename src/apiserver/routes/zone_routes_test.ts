import { zoneFromText } from "../../testing/zone_text.ts";
import type { ZoneContent } from "../../zone/types.ts";
import assert from "node:assert/strict";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  type ApiFixture,
  apiFixture,
} from "../testdata/api_fixture.ts";
import { zoneRoutes } from "./zone_routes.ts";
import { parseZoneFile } from "../../zone/zone_file_parse.ts";
import { formatRdata } from "../../zone/format.ts";
import { recordKey } from "./zone_records.ts";

const ZONE = {
  metadata: { name: "home" },
  spec: {
    zoneName: "home.test.",
    type: "primary",
    soa: { mname: "ns1.home.test.", rname: "admin.home.test." },
    nameservers: ["ns1.home.test."],
    defaultTTL: 300,
  },
};

const FILE = "file:objects.d/home.yaml";
const RECORDS = "/api/v1/dnszones/home/records";
const ZONEFILE = "/api/v1/dnszones/home/zonefile";

async function fixture(): Promise<ApiFixture> {
  return await apiFixture({
    extraRoutes: (shared) => [
      zoneRoutes({ store: shared.store, now: shared.now }),
    ],
  });
}

/** The admin, logged in, with the zone `home` created through the API. */
async function adminWithZone(f: ApiFixture): Promise<ApiClient> {
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const made = await admin.request("POST", "/api/v1/dnszones", ZONE);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return admin;
}

/** A record set of `home` that a file owns. */
async function fileRecordSet(f: ApiFixture): Promise<void> {
  await f.store.apply({
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: { namespace: "infra", name: "mail" },
    spec: {
      zoneRef: { name: "home" },
      endpoints: [
        { dnsName: "mail.home.test", recordType: "A", targets: ["192.0.2.25"] },
        {
          dnsName: "home.test",
          recordType: "MX",
          targets: ["10 mail.home.test"],
          recordTTL: 3600,
        },
      ],
    },
  }, { manager: FILE });
}

/** A text answer (the client decodes JSON only). */
async function getText(
  f: ApiFixture,
  client: ApiClient,
  path: string,
): Promise<{ status: number; type: string | null; text: string }> {
  const res = await f.api.app.request(path, {
    headers: { cookie: client.cookie! },
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    text: await res.text(),
  };
}

function rowText(
  row: { name: string; type: string; ttl: number; data: string },
) {
  return `${row.name} ${row.ttl} ${row.type} ${row.data}`;
}

Deno.test("zone records: the flat list has one row per record set, endpoint and target, in canonical order", async () => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  await fileRecordSet(f);
  const made = await admin.request(
    "POST",
    "/api/v1/namespaces/apps/dnsrecordsets",
    {
      metadata: { name: "web" },
      spec: {
        zoneRef: { name: "home" },
        endpoints: [
          {
            dnsName: "www.home.test",
            recordType: "A",
            targets: ["192.0.2.11", "192.0.2.10"],
            recordTTL: 60,
          },
          {
            dnsName: "www.home.test",
            recordType: "AAAA",
            targets: ["2001:db8::10"],
          },
          {
            dnsName: "old.home.test",
            recordType: "A",
            targets: ["192.0.2.99"],
            kudurru: { disabled: true },
          },
        ],
      },
    },
  );
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const list = await admin.request("GET", RECORDS);
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.deepEqual(list.body.data.zone, {
    name: "home",
    zoneName: "home.test.",
    defaultTTL: 300,
  });
  assert.deepEqual(list.body.data.items.map(rowText), [
    "home.test. 3600 MX 10 mail.home.test",
    "mail.home.test. 300 A 192.0.2.25",
    "old.home.test. 300 A 192.0.2.99",
    "www.home.test. 60 A 192.0.2.10",
    "www.home.test. 60 A 192.0.2.11",
    "www.home.test. 300 AAAA 2001:db8::10",
  ]);
  assert.equal(list.body.data.continue, undefined);
  // Pages of two: each ends with continue, the last without; all rows once.
  const paged: unknown[] = [];
  let token = "";
  for (let page = 0; page < 5; page++) {
    const part = await admin.request(
      "GET",
      `${RECORDS}?limit=2${token && `&continue=${token}`}`,
    );
    assert.equal(part.status, 200, JSON.stringify(part.body));
    paged.push(...part.body.data.items);
    if (part.body.data.continue === undefined) break;
    token = part.body.data.continue;
  }
  assert.deepEqual(paged, list.body.data.items);
  // A row removed since a page ended still marks where the next one starts.
  const firstTwo = await admin.request("GET", `${RECORDS}?limit=2`);
  const removed = await admin.request("DELETE", RECORDS, {
    name: "mail.home.test",
    type: "A",
    data: "192.0.2.25",
  });
  assert.equal(removed.status, 409, "a file's record: refused, left as is");
  const hidden = await admin.request("DELETE", RECORDS, {
    name: "old.home.test",
    type: "A",
    data: "192.0.2.99",
  });
  assert.equal(hidden.status, 200, JSON.stringify(hidden.body));
  const afterOld = await admin.request(
    "GET",
    `${RECORDS}?limit=2&continue=${firstTwo.body.data.continue}`,
  );
  assert.deepEqual(afterOld.body.data.items.map(rowText), [
    "www.home.test. 60 A 192.0.2.10",
    "www.home.test. 60 A 192.0.2.11",
  ]);
  for (const bad of ["limit=0", "limit=1001", "limit=x", "continue=bm9wZQ"]) {
    const refused = await admin.request("GET", `${RECORDS}?${bad}`);
    assert.equal(refused.status, 400, bad);
    assert.equal(refused.body.error.key, "bad_request");
  }
  assert.deepEqual(list.body.data.items[0].recordSet, {
    namespace: "infra",
    name: "mail",
  });
  assert.equal(list.body.data.items[0].managedBy, FILE);
  assert.equal(list.body.data.items[3].managedBy, "api");
  assert.equal(list.body.data.items[2].disabled, true);
  const www = await admin.request(
    "GET",
    `${RECORDS}?name=WWW.home.test&type=aaaa`,
  );
  assert.deepEqual(www.body.data.items.map(rowText), [
    "www.home.test. 300 AAAA 2001:db8::10",
  ]);
  const missing = await admin.request("GET", "/api/v1/dnszones/nope/records");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.key, "not_found");
});

Deno.test("zone records: add and remove one record; the RRset keeps one TTL", async (t) => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  await t.step(
    "the first record makes the API's record set default/home-api",
    async () => {
      const added = await admin.request("POST", RECORDS, {
        name: "www.home.test",
        type: "A",
        data: "192.0.2.10",
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.deepEqual(added.body.data.record, {
        recordSet: { namespace: "default", name: "home-api" },
        managedBy: "api",
        name: "www.home.test.",
        type: "A",
        ttl: 300,
        data: "192.0.2.10",
      });
      assert.deepEqual(added.body.data.problems, []);
      const set = await admin.request(
        "GET",
        "/api/v1/namespaces/default/dnsrecordsets/home-api",
      );
      assert.equal(set.body.data.metadata.managedBy, "api");
      assert.deepEqual(set.body.data.spec.zoneRef, { name: "home" });
    },
  );
  await t.step(
    "a second record of the RRset merges into its endpoint; its TTL is the RRset's",
    async () => {
      const added = await admin.request("POST", RECORDS, {
        name: "www.home.test.",
        type: "a",
        ttl: 60,
        data: "192.0.2.11",
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      const set = await admin.request(
        "GET",
        "/api/v1/namespaces/default/dnsrecordsets/home-api",
      );
      assert.deepEqual(set.body.data.spec.endpoints, [{
        dnsName: "www.home.test.",
        recordType: "A",
        targets: ["192.0.2.10", "192.0.2.11"],
        recordTTL: 60,
      }]);
      const list = await admin.request("GET", RECORDS);
      assert.deepEqual(list.body.data.items.map(rowText), [
        "www.home.test. 60 A 192.0.2.10",
        "www.home.test. 60 A 192.0.2.11",
      ]);
    },
  );
  await t.step("the same record again is 200 and changes nothing", async () => {
    const again = await admin.request("POST", RECORDS, {
      name: "www.home.test",
      type: "A",
      data: "192.0.2.10",
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.record.ttl, 60);
  });
  await t.step(
    "a record the zone cannot serve says why in problems",
    async () => {
      const cname = await admin.request("POST", RECORDS, {
        name: "www.home.test",
        type: "CNAME",
        data: "elsewhere.example",
      });
      assert.equal(cname.status, 201);
      assert.equal(cname.body.data.problems[0].reason, "CNAMEConflict");
      const gone = await admin.request("DELETE", RECORDS, {
        name: "www.home.test",
        type: "CNAME",
        data: "elsewhere.example.",
      });
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
    },
  );
  await t.step(
    "remove one record by a JSON body (a list row will do)",
    async () => {
      const list = await admin.request("GET", RECORDS);
      const row = list.body.data.items[0];
      const removed = await admin.request("DELETE", RECORDS, row);
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.deepEqual(removed.body.data.removed.map(rowText), [
        "www.home.test. 60 A 192.0.2.10",
      ]);
    },
  );
  await t.step(
    "remove the last by query: the emptied record set is deleted",
    async () => {
      const removed = await admin.request(
        "DELETE",
        `${RECORDS}?name=www.home.test&type=A&data=192.0.2.11`,
      );
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      const set = await admin.request(
        "GET",
        "/api/v1/namespaces/default/dnsrecordsets/home-api",
      );
      assert.equal(set.status, 404);
      const again = await admin.request(
        "DELETE",
        `${RECORDS}?name=www.home.test&type=A&data=192.0.2.11`,
      );
      assert.equal(again.status, 404);
      assert.equal(again.body.error.key, "not_found");
    },
  );
});

Deno.test("zone records: validation is 422 naming the field", async () => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ type: "A", data: "192.0.2.1" }, "invalid", "name"],
    [
      { name: "www.elsewhere.test", type: "A", data: "192.0.2.1" },
      "invalid",
      "name",
    ],
    [{ name: "www.home.test", type: "BOGUS", data: "x" }, "invalid", "type"],
    [{ name: "home.test", type: "SOA", data: "x" }, "invalid", "type"],
    [{ name: "@", type: "NS", data: "ns2.home.test" }, "invalid", "type"],
    [
      { name: "www.home.test", type: "A", data: "192.0.2.1", ttl: -1 },
      "invalid",
      "ttl",
    ],
    [
      { name: "www.home.test", type: "A", data: "192.0.2.1", colour: "red" },
      "unknown_field",
      "colour",
    ],
  ];
  for (const [body, key, path] of cases) {
    const res = await admin.request("POST", RECORDS, body);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.equal(res.body.error.key, key);
    assert.equal(res.body.error.issues[0].path, path, JSON.stringify(res.body));
  }
  // Record data is checked by the Store's schema, as a record set's targets.
  const bad = await admin.request("POST", RECORDS, {
    name: "www.home.test",
    type: "A",
    data: "192.0.2.300",
  });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.equal(bad.body.error.key, "invalid");
  assert.match(
    bad.body.error.issues[0].path,
    /^spec\.endpoints\[0\]\.targets\[0\]$/,
  );
  assert.match(bad.body.error.message, /192\.0\.2\.300/);
  const none = await admin.request("GET", RECORDS);
  assert.deepEqual(none.body.data.items, [], "nothing was stored");
});

Deno.test("zone records: a record a file declares is 409 managed_by naming the file", async () => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  await fileRecordSet(f);
  const add = await admin.request("POST", RECORDS, {
    name: "mail.home.test",
    type: "A",
    data: "192.0.2.26",
  });
  assert.equal(add.status, 409, JSON.stringify(add.body));
  assert.equal(add.body.error.key, "managed_by");
  assert.equal(add.body.error.owner, FILE);
  assert.match(
    add.body.error.message,
    /infra\/mail.*managed by file objects\.d\/home\.yaml/,
  );
  const remove = await admin.request("DELETE", RECORDS, {
    name: "mail.home.test",
    type: "A",
    data: "192.0.2.25",
  });
  assert.equal(remove.status, 409, JSON.stringify(remove.body));
  assert.equal(remove.body.error.key, "managed_by");
  assert.equal(remove.body.error.owner, FILE);
  // Another type at the same name is the API's to add.
  const aaaa = await admin.request("POST", RECORDS, {
    name: "mail.home.test",
    type: "AAAA",
    data: "2001:db8::25",
  });
  assert.equal(aaaa.status, 201, JSON.stringify(aaaa.body));
});

Deno.test("zone records: the zone file export is RFC 1035 text that parses back to the served records", async () => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  await fileRecordSet(f);
  const zone = await f.store.get({
    kind: "DNSZone",
    namespace: "",
    name: "home",
  });
  await f.store.updateStatus({ ...zone, status: { serial: 2026060101 } });
  for (
    const [name, type, data] of [
      ["ns1.home.test", "A", "192.0.2.53"],
      ["www.home.test", "A", "192.0.2.10"],
      ["home.test", "TXT", "v=spf1 -all; really"],
      ["*.wild.home.test", "AAAA", "2001:db8::1"],
      ["_sip._tcp.home.test", "SRV", "0 5 5060 sip.home.test"],
    ]
  ) {
    const res = await admin.request("POST", RECORDS, { name, type, data });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  const file = await getText(f, admin, ZONEFILE);
  assert.equal(file.status, 200, file.text);
  assert.match(file.type!, /^text\/plain/);
  const lines = file.text.split("\n");
  assert.match(
    lines[0]!,
    /^; zone home\.test\. \(DNSZone home\), serial 2026060101/,
  );
  assert.equal(lines[1], "$ORIGIN home.test.");
  assert.equal(lines[2], "$TTL 300");
  assert.equal(
    lines[3],
    "home.test. 300 IN SOA ns1.home.test. admin.home.test. 2026060101 3600 900 1209600 300",
  );
  assert.equal(lines[4], "home.test. 300 IN NS ns1.home.test.");
  const parse = parseZoneFile(file.text, { origin: "home.test." });
  assert.deepEqual(parse.skipped, []);
  const parsed = parse.records
    .filter((r) =>
      r.type !== "SOA" && !(r.type === "NS" && r.owner === "home.test.")
    )
    .map((r) =>
      `${r.owner} ${r.ttl} ${r.type} ${recordKey(r.type, formatRdata(r.rdata))}`
    )
    .sort();
  const list = await admin.request("GET", RECORDS);
  const listed = list.body.data.items
    .map((r: { name: string; ttl: number; type: string; data: string }) =>
      `${r.name} ${r.ttl} ${r.type} ${recordKey(r.type, r.data)}`
    )
    .sort();
  assert.deepEqual(parsed, listed);
});

Deno.test("zone records: import a zone file, with a report of what was skipped", async (t) => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  await fileRecordSet(f);
  const text = [
    "$ORIGIN home.test.", // 1
    "$TTL 600", // 2
    "@ IN SOA ns1 admin ( 1 3600 900 1209600 300 )", // 3
    "@ NS ns1", // 4
    "@ MX 20 backup-mx", // 5: the file's record set declares the apex MX
    "www A 192.0.2.10", // 6
    "    A 192.0.2.11", // 7
    "    AAAA 2001:db8::10", // 8
    "mail A 192.0.2.26", // 9: mail A is the file's
    "$INCLUDE /etc/passwd", // 10
    "elsewhere.example. A 192.0.2.1", // 11
    'pc HINFO "x86" "linux"', // 12
    "broken A 300.1.1.1", // 13
    'txt TXT "a; b" c', // 14
    "short 60 IN CNAME www", // 15
  ].join("\n");
  await t.step("a dry run reports and writes nothing", async () => {
    const dry = await admin.request("POST", `${ZONEFILE}?dryRun=true`, text, {
      "content-type": "text/plain",
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.data.dryRun, true);
    assert.equal(dry.body.data.imported, 5);
    const list = await admin.request("GET", RECORDS);
    assert.equal(list.body.data.items.length, 2, "only the file's records");
  });
  await t.step(
    "the import adds what it can and lists the rest by line",
    async () => {
      const res = await admin.request("POST", ZONEFILE, text, {
        "content-type": "text/plain; charset=utf-8",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const report = res.body.data;
      assert.equal(report.imported, 5);
      assert.equal(report.alreadyPresent, 0);
      assert.deepEqual(report.recordSets, [
        { namespace: "default", name: "home-api", action: "create" },
      ]);
      assert.deepEqual(
        report.skipped.map((s: { line: number }) => s.line),
        [3, 4, 5, 9, 10, 11, 12, 13],
      );
      const reason = (line: number) =>
        report.skipped.find((s: { line: number }) => s.line === line).reason;
      assert.match(reason(3), /SOA comes from the DNSZone/);
      assert.match(reason(4), /apex NS comes from the DNSZone/);
      assert.match(
        reason(5),
        /declared by DNSRecordSet infra\/mail, managed by file objects\.d\/home\.yaml/,
      );
      assert.match(reason(9), /managed by file/);
      assert.match(reason(10), /\$INCLUDE is not followed/);
      assert.match(reason(11), /outside the zone home\.test\./);
      assert.match(reason(12), /does not serve HINFO/);
      assert.match(reason(13), /A address "300\.1\.1\.1"/);
      assert.equal(
        report.skipped[0].text,
        "@ IN SOA ns1 admin ( 1 3600 900 1209600 300 )",
      );
      assert.equal(report.skippedCount, 8);
      assert.deepEqual(report.problems, []);
      const list = await admin.request("GET", RECORDS);
      assert.deepEqual(
        list.body.data.items
          .filter((r: { managedBy: string }) => r.managedBy === "api")
          .map(rowText),
        [
          "short.home.test. 60 CNAME www.home.test.",
          'txt.home.test. 600 TXT "a; b" "c"',
          "www.home.test. 600 A 192.0.2.10",
          "www.home.test. 600 A 192.0.2.11",
          "www.home.test. 600 AAAA 2001:db8::10",
        ],
      );
    },
  );
  await t.step(
    "importing again finds every record present, as JSON {text}",
    async () => {
      const res = await admin.request("POST", ZONEFILE, { text });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.imported, 0);
      assert.equal(res.body.data.alreadyPresent, 5);
      assert.deepEqual(res.body.data.recordSets, []);
    },
  );
  await t.step("other media types are 415", async () => {
    const form = await admin.request("POST", ZONEFILE, text, {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 415);
    assert.equal(form.body.error.key, "unsupported_media_type");
  });
});

Deno.test("zone records: an import past its bytes or records is 413 and stores nothing", async () => {
  await using f = await apiFixture({
    extraRoutes: (shared) => [
      zoneRoutes({ store: shared.store, limits: { bytes: 2000, records: 10 } }),
    ],
  });
  const admin = await adminWithZone(f);
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => `h${i} A 192.0.2.${i}`).join("\n");
  const many = await admin.request("POST", ZONEFILE, records(11), {
    "content-type": "text/plain",
  });
  assert.equal(many.status, 413, JSON.stringify(many.body));
  assert.equal(many.body.error.key, "body_too_large");
  assert.match(many.body.error.message, /more than 10 records/);
  const large = await admin.request(
    "POST",
    ZONEFILE,
    records(10) + "\n" + "; padding\n".repeat(200),
    { "content-type": "text/plain" },
  );
  assert.equal(large.status, 413, JSON.stringify(large.body));
  assert.match(large.body.error.message, /larger than 2000 bytes/);
  const huge = await admin.request(
    "POST",
    ZONEFILE,
    "; padding\n".repeat(500_000),
    { "content-type": "text/plain" },
  );
  assert.equal(huge.status, 413, "the app's own limit or the route's");
  assert.equal(huge.body.error.key, "body_too_large");
  const fine = await admin.request("POST", ZONEFILE, records(10), {
    "content-type": "text/plain",
  });
  assert.equal(fine.status, 200, JSON.stringify(fine.body));
  assert.equal(fine.body.data.imported, 10);
  const list = await admin.request("GET", RECORDS);
  assert.equal(list.body.data.items.length, 10, "only the import that fit");
});

Deno.test("zone records: a zone-admin of another zone is 403 here, and may work in its own", async () => {
  await using f = await fixture();
  const admin = await adminWithZone(f);
  const other = await admin.request("POST", "/api/v1/dnszones", {
    metadata: { name: "other" },
    spec: { zoneName: "other.test.", type: "primary" },
  });
  assert.equal(other.status, 201, JSON.stringify(other.body));
  const user = await admin.request("POST", "/api/v1/users", {
    name: "alice",
    password: "first password for alice",
  });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  const binding = await admin.request("POST", "/api/v1/rolebindings", {
    name: "alice-other",
    role: "zone-admin",
    scope: { kind: "zone", name: "other" },
    subjects: [{ kind: "User", name: "alice" }],
  });
  assert.equal(binding.status, 201, JSON.stringify(binding.body));
  const alice = f.client();
  assert.equal(
    (await alice.login("alice", "first password for alice")).status,
    200,
  );
  const changed = await alice.request("POST", "/api/v1/auth/password", {
    current: "first password for alice",
    new: "a second, better password",
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  alice.csrf = changed.body.data.csrf;
  const refused = [
    await alice.request("GET", RECORDS),
    await alice.request("POST", RECORDS, {
      name: "www.home.test",
      type: "A",
      data: "192.0.2.1",
    }),
    await alice.request(
      "DELETE",
      `${RECORDS}?name=www.home.test&type=A&data=192.0.2.1`,
    ),
    await alice.request("POST", ZONEFILE, "www A 192.0.2.1", {
      "content-type": "text/plain",
    }),
  ];
  for (const res of refused) {
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.error.key, "forbidden");
    assert.equal(res.body.error.missing.scope, "zone:home");
  }
  assert.equal((await getText(f, alice, ZONEFILE)).status, 403);
  const own = await alice.request("POST", "/api/v1/dnszones/other/records", {
    name: "www.other.test",
    type: "A",
    data: "192.0.2.1",
  });
  assert.equal(own.status, 201, JSON.stringify(own.body));
  const ownFile = await getText(f, alice, "/api/v1/dnszones/other/zonefile");
  assert.equal(ownFile.status, 200);
  assert.match(ownFile.text, /^www\.other\.test\. 300 IN A 192\.0\.2\.1$/m);
});

Deno.test("zone records: a forward zone has no zone file", async () => {
  await using f = await fixture();
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const made = await f.store.apply({
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "fwd" },
    spec: {
      zoneName: "corp.",
      type: "forward",
      forward: { upstreamGroup: "corp" },
    },
  }, { manager: "api" });
  assert.equal(made.metadata.name, "fwd");
  const file = await getText(f, admin, "/api/v1/dnszones/fwd/zonefile");
  assert.equal(file.status, 400);
  assert.match(file.text, /forward zone/);
});

Deno.test("zone records: a secondary zone's file is its transferred copy, read-only; 503 before it has one", async () => {
  let served: ZoneContent | undefined = undefined;
  await using f = await apiFixture({
    extraRoutes: (shared) => [
      zoneRoutes({
        store: shared.store,
        servedContent: (name) => name === "sec.test." ? served : undefined,
      }),
    ],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const made = await admin.request("POST", "/api/v1/dnszones", {
    metadata: { name: "sec" },
    spec: {
      zoneName: "sec.test.",
      type: "secondary",
      secondary: { primaries: ["192.0.2.53"] },
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const before = await getText(f, admin, "/api/v1/dnszones/sec/zonefile");
  assert.equal(before.status, 503);
  assert.match(before.text, /no copy served/);
  served = {
    ...zoneFromText("sec.test.", [
      "sec.test. 3600 IN SOA ns1.sec.test. h.sec.test. 12 3600 600 86400 300",
      "sec.test. 3600 IN NS ns1.sec.test.",
      "www.sec.test. 300 IN A 192.0.2.1",
    ]),
    serial: 12,
  };
  const file = await getText(f, admin, "/api/v1/dnszones/sec/zonefile");
  assert.equal(file.status, 200);
  assert.match(file.text, /secondary DNSZone sec\), serial 12/);
  assert.match(file.text, /^www\.sec\.test\. 300 IN A 192\.0\.2\.1$/m);
  // Its records cannot be written here.
  const add = await admin.request("POST", "/api/v1/dnszones/sec/records", {
    name: "x.sec.test",
    type: "A",
    data: "192.0.2.9",
  });
  assert.equal(add.status, 400);
  assert.match(add.body.error.message, /secondary zone/);
});

Deno.test("zone records: on a read-only node writes are 409 read_only, reads and dry runs work", async () => {
  await using f = await apiFixture({
    extraRoutes: (shared) => [
      zoneRoutes({
        store: shared.store,
        readOnlyReason: () => "a static configuration",
      }),
    ],
  });
  const admin = await adminWithZone(f);
  const add = await admin.request("POST", RECORDS, {
    name: "www.home.test",
    type: "A",
    data: "192.0.2.1",
  });
  assert.equal(add.status, 409);
  assert.equal(add.body.error.key, "read_only");
  const remove = await admin.request(
    "DELETE",
    `${RECORDS}?name=www.home.test&type=A&data=192.0.2.1`,
  );
  assert.equal(remove.body.error.key, "read_only");
  const importing = await admin.request("POST", ZONEFILE, "www A 192.0.2.1", {
    "content-type": "text/plain",
  });
  assert.equal(importing.body.error.key, "read_only");
  const dry = await admin.request(
    "POST",
    `${ZONEFILE}?dryRun=1`,
    "www A 192.0.2.1",
    { "content-type": "text/plain" },
  );
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.equal(dry.body.data.imported, 1);
  assert.equal((await admin.request("GET", RECORDS)).status, 200);
});

Deno.test("zone records: the OpenAPI document with these routes is valid OpenAPI 3.1", async () => {
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  await using f = await fixture();
  const doc = await f.client().request("GET", "/api/v1/openapi.json");
  assert.ok(doc.body.paths["/api/v1/dnszones/{zone}/records"]);
  assert.ok(doc.body.paths["/api/v1/dnszones/{zone}/zonefile"]);
  const result = await new Validator().validate(doc.body);
  assert.equal(
    result.valid,
    true,
    String(JSON.stringify(result.errors)).slice(0, 2000),
  );
});
