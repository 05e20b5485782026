/**
 * A Pi-hole v5 Teleporter `.tar.gz`, packed by GNU tar from JSON dumps of
 * the gravity rows FTL's own test database holds (laid out as Pi-hole v5's
 * web interface wrote them, and as FTL v6 still reads them for migration),
 * imports to what the same rows give as a v6 gravity.db.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { ImportError } from "./import_result.ts";
import { importPihole } from "./pihole.ts";
import { piholeDir } from "./pihole_fixture_test.ts";

/** Each v5 member, the table it dumps and the columns v5 wrote. */
const V5_TABLES: [string, string][] = [
  [
    "group.json",
    `SELECT id, enabled, name, date_added, date_modified, description FROM "group"`,
  ],
  [
    "adlist.json",
    "SELECT id, address, enabled, date_added, date_modified, comment, date_updated, number, invalid_domains, status FROM adlist",
  ],
  ["adlist_by_group.json", "SELECT group_id, adlist_id FROM adlist_by_group"],
  ["whitelist.exact.json", DOMAINS(0)],
  ["blacklist.exact.json", DOMAINS(1)],
  ["whitelist.regex.json", DOMAINS(2)],
  ["blacklist.regex.json", DOMAINS(3)],
  [
    "client.json",
    "SELECT id, ip, date_added, date_modified, comment FROM client",
  ],
  ["client_by_group.json", "SELECT group_id, client_id FROM client_by_group"],
  [
    "domainlist_by_group.json",
    "SELECT group_id, domainlist_id FROM domainlist_by_group",
  ],
];

function DOMAINS(type: number): string {
  return `SELECT id, domain, enabled, date_added, date_modified, comment, type FROM domainlist WHERE type = ${type}`;
}

/** The pihole.toml's dns.hosts and dns.cnameRecords, as v5 kept them. */
const CUSTOM_LIST =
  "1.1.1.1 abc-custom.com def-custom.de\n2.2.2.2 äste.com steä.com\n";
const CNAME_CONF =
  "cname=brücke.com,äste.com,2\ncname=pihole.mydomain.net,pi.hole\n";
const SETUP_VARS =
  "PIHOLE_INTERFACE=eth0\nPIHOLE_DNS_1=127.0.0.1#5555\nWEBPASSWORD=0123abcd\nBLOCKING_ENABLED=true\n";

async function tarGz(dir: string, members: string[]): Promise<string> {
  const out = join(dir, "pi-hole-teleporter_2023-01-01_00-00-00.tar.gz");
  const tar = await new Deno.Command("tar", {
    args: ["-czf", out, "-C", join(dir, "v5"), ...members],
    stderr: "piped",
  }).output();
  assert.equal(tar.code, 0, new TextDecoder().decode(tar.stderr));
  return out;
}

/** The objects of these kinds, by kind and name. */
function byName(objects: KObject[], kinds: string[]): Map<string, KObject> {
  return new Map(
    objects.filter((o) => kinds.includes(o.kind)).map((
      o,
    ) => [`${o.kind}/${o.metadata.name}`, o]),
  );
}

Deno.test("pihole: a v5 Teleporter tar.gz imports what the same rows give as a v6 gravity.db", async () => {
  // v5 had no subscribed allow lists (adlist.type): leave them out of both.
  await using fixture = await piholeDir(
    ["adlist_by_group", "gravity", "antigravity"].map((t) =>
      `DELETE FROM ${t} WHERE adlist_id IN (SELECT id FROM adlist WHERE type = 1);`
    ).join("") + "DELETE FROM adlist WHERE type = 1;",
  );
  const v5 = join(fixture.dir, "v5");
  await Deno.mkdir(join(v5, "dnsmasq.d"), { recursive: true });
  const db = new DatabaseSync(join(fixture.dir, "gravity.db"));
  try {
    for (const [file, sql] of V5_TABLES) {
      await Deno.writeTextFile(
        join(v5, file),
        JSON.stringify(db.prepare(sql).all()),
      );
    }
  } finally {
    db.close();
  }
  await Deno.writeTextFile(join(v5, "custom.list"), CUSTOM_LIST);
  await Deno.writeTextFile(join(v5, "setupVars.conf"), SETUP_VARS);
  await Deno.writeTextFile(
    join(v5, "dnsmasq.d", "05-pihole-custom-cname.conf"),
    CNAME_CONF,
  );
  const archive = await tarGz(fixture.dir, [
    ...V5_TABLES.map(([file]) => file),
    "custom.list",
    "setupVars.conf",
    "dnsmasq.d/05-pihole-custom-cname.conf",
  ]);

  const fromV5 = await importPihole(archive);
  const fromV6 = await importPihole(fixture.dir);
  const kinds = ["BlockList", "ClientGroup", "Policy", "DNSRecordSet"];
  const got = byName(fromV5.objects, kinds);
  const want = byName(fromV6.objects, kinds);
  assert.ok(want.size > 10, `the rows give objects: ${[...want.keys()]}`);
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
  for (const [name, object] of want) {
    assert.deepEqual(got.get(name), object, name);
  }
  assert.deepEqual(fromV5.settings.upstreams, fromV6.settings.upstreams);
  // setupVars.conf keys other than the upstreams are named, not imported.
  const setup = fromV5.report.skipped.find((n) => n.where === "setupVars.conf");
  assert.match(setup?.what ?? "", /WEBPASSWORD/);
  assert.doesNotMatch(JSON.stringify(fromV5), /0123abcd/);
});

Deno.test("pihole: a tar.gz that is no v5 Teleporter export, or is cut short, is an ImportError", async () => {
  await using fixture = await piholeDir();
  const v5 = join(fixture.dir, "v5");
  await Deno.mkdir(v5);
  await Deno.writeTextFile(join(v5, "notes.txt"), "not a Pi-hole file\n");
  const foreign = await tarGz(fixture.dir, ["notes.txt"]);
  await assert.rejects(
    () => importPihole(foreign),
    (e) =>
      e instanceof ImportError &&
      /not a Pi-hole v5 Teleporter export/.test(e.message),
  );
  const bytes = await Deno.readFile(foreign);
  const cut = join(fixture.dir, "cut.tar.gz");
  await Deno.writeFile(cut, bytes.subarray(0, bytes.length - 20));
  await assert.rejects(() => importPihole(cut), ImportError);
});
