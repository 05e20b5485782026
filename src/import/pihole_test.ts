/**
 * `importPihole` on Pi-hole's own files: the pihole.toml pihole-FTL wrote
 * and FTL's test gravity database, as a directory, as a Teleporter zip and
 * as bad input (not a Teleporter, truncated, a declared zip bomb, another
 * database, broken TOML), which must be an ImportError, never a crash.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { zipSync } from "fflate";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { ImportError } from "./import_result.ts";
import { importPihole } from "./pihole.ts";
import { reverseZone, upstreamOf } from "./pihole_toml.ts";
import { piholeDir, teleporterZip } from "./pihole_fixture_test.ts";

function find(objects: KObject[], kind: string, name: string): KObject {
  const o = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(o, `${kind} ${name} in ${objects.map((o) => o.metadata.name)}`);
  return o;
}

// deno-lint-ignore no-explicit-any
type Spec = any;

Deno.test("pihole: a directory with pihole.toml and gravity.db", async () => {
  await using fixture = await piholeDir();
  const { objects, settings, report } = await importPihole(fixture.dir);
  for (const o of objects) assert.ok(validateObject(o).ok, o.metadata.name);
  const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
  assert.equal(new Set(names).size, names.length, "names unique");

  assert.deepEqual(settings.upstreams, {
    groups: { default: { servers: ["127.0.0.1:5555"] } },
  });
  assert.deepEqual(settings.blocking, {
    defaultResponse: "zeroIP",
    blockTTL: "2s",
  });
  assert.deepEqual(settings.cache, { maxEntries: 10000 });

  // dns.hosts, IDN as A-labels; dns.cnameRecords with its TTL.
  const aste = find(objects, "DNSRecordSet", "xn-ste-pla-com").spec as Spec;
  assert.deepEqual(aste.endpoints, [{
    dnsName: "xn--ste-pla.com",
    recordType: "A",
    targets: ["2.2.2.2"],
  }]);
  const bridge = find(objects, "DNSRecordSet", "xn-brcke-lva-com").spec as Spec;
  assert.deepEqual(bridge.endpoints[0], {
    dnsName: "xn--brcke-lva.com",
    recordType: "CNAME",
    targets: ["xn--ste-pla.com."],
    recordTTL: 2,
  });
  assert.equal(
    (find(objects, "DNSZone", "lan").spec as Spec).zoneName,
    "lan.",
  );

  // adlist type 0 / 1.
  const block = find(objects, "BlockList", "pihole-fake-block-list")
    .spec as Spec;
  assert.equal(block.mode, "block");
  assert.equal(block.sources[0].url, "https://pi-hole.net/block.txt");
  assert.equal(
    (find(objects, "BlockList", "pihole-fake-allow-list").spec as Spec).mode,
    "allow",
  );
  // domainlist: exact as domains, regex as regex; extensions skipped.
  const deny = find(objects, "BlockList", "pihole-deny").spec as Spec;
  assert.equal(deny.sources[0].format, "domains");
  assert.match(deny.sources[0].inline, /^denied\.ftl$/m);
  const allow = find(objects, "BlockList", "pihole-allow").spec as Spec;
  assert.deepEqual(allow.sources.map((s: Spec) => s.format), [
    "domains",
    "regex",
  ]);
  assert.match(allow.sources[1].inline, /^\^gravity-allowed$/m);
  assert.ok(
    report.skipped.some((n) =>
      n.what.includes("^regex-NXDOMAIN$;reply=NXDOMAIN") &&
      /regex extension/.test(n.detail)
    ),
  );
  assert.ok(
    !objects.some((o) => JSON.stringify(o.spec).includes(";querytype=")),
  );

  // Groups: Default → default, others by name; MAC client; :iface skipped.
  const policy = find(objects, "Policy", "default").spec as Spec;
  assert.deepEqual(policy.clientGroupRefs, ["default"]);
  assert.ok(policy.blockListRefs.includes("pihole-deny"));
  assert.ok(policy.allowListRefs.includes("pihole-fake-allow-list"));
  const second = find(objects, "Policy", "second-test-group").spec as Spec;
  assert.deepEqual(second.allowListRefs, ["pihole-allow-second-test-group"]);
  assert.ok(!second.blockListRefs.includes("pihole-deny"));
  assert.deepEqual(
    (find(objects, "ClientGroup", "second-test-group").spec as Spec).clients,
    [{ ip: "127.0.0.2" }],
  );
  assert.deepEqual(
    (find(objects, "ClientGroup", "mac-client-test-group").spec as Spec)
      .clients,
    [{ mac: "aa:bb:cc:dd:ee:ff" }],
  );
  assert.ok(
    report.skipped.some((n) =>
      n.what === "client :enp0s123" && /interface/.test(n.detail)
    ),
  );
  // Sections reported once each; pwhash and friends never imported.
  for (const section of ["dhcp", "webserver", "debug", "misc"]) {
    assert.equal(report.skipped.filter((n) => n.where === section).length, 1);
  }
});

Deno.test("pihole: a Teleporter zip gives what the directory gives", async () => {
  await using fixture = await piholeDir();
  const fromDir = await importPihole(fixture.dir);
  const zip = join(fixture.dir, "pi-hole_test_teleporter.zip");
  await Deno.writeFile(zip, await teleporterZip(fixture.dir));
  const fromZip = await importPihole(zip);
  assert.deepEqual(fromZip.objects, fromDir.objects);
  assert.deepEqual(fromZip.settings, fromDir.settings);
  assert.ok(fromZip.report.skipped.some((n) => n.where === "etc/hosts"));
});

Deno.test("pihole: a Teleporter-style copy (CREATE TABLE AS SELECT) is read by column name", async () => {
  await using fixture = await piholeDir();
  // As FTL's create_teleporter_database() copies them: bare tables, no
  // constraints, no info table; here with the columns in reverse order.
  const copy = join(fixture.dir, "copy.db");
  const source = new DatabaseSync(join(fixture.dir, "gravity.db"));
  const db = new DatabaseSync(copy);
  for (
    const t of [
      "group",
      "adlist",
      "adlist_by_group",
      "domainlist",
      "domainlist_by_group",
      "client",
      "client_by_group",
    ]
  ) {
    const columns = (source.prepare(`PRAGMA table_info("${t}")`).all() as {
      name: string;
    }[]).map((c) => `"${c.name}"`).reverse();
    db.exec(`CREATE TABLE "${t}" (${columns.join(", ")})`);
    const insert = db.prepare(
      `INSERT INTO "${t}" (${columns.join(", ")}) VALUES (${
        columns.map(() => "?").join(", ")
      })`,
    );
    for (const row of source.prepare(`SELECT * FROM "${t}"`).all()) {
      insert.run(
        ...columns.map((c) =>
          (row as Record<string, string | number | null>)[c.slice(1, -1)]!
        ),
      );
    }
  }
  source.close();
  db.close();
  const fromDir = await importPihole(fixture.dir);
  const fromCopy = await importPihole(copy);
  const lists = (r: typeof fromDir) =>
    r.objects.filter((o) => o.kind !== "DNSZone" && o.kind !== "DNSRecordSet");
  assert.deepEqual(lists(fromCopy), lists(fromDir));
});

Deno.test("pihole: bad input is an ImportError that says what it is", async () => {
  await using fixture = await piholeDir();
  const file = (name: string) => join(fixture.dir, name);
  const enc = (s: string) => new TextEncoder().encode(s);

  await Deno.writeFile(file("other.zip"), zipSync({ "README.txt": enc("hi") }));
  await assert.rejects(
    importPihole(file("other.zip")),
    (e: Error) =>
      e instanceof ImportError && /not a Pi-hole Teleporter/.test(e.message),
  );

  const zip = await teleporterZip(fixture.dir);
  await Deno.writeFile(file("truncated.zip"), zip.subarray(0, zip.length / 2));
  await assert.rejects(
    importPihole(file("truncated.zip")),
    (e: Error) => e instanceof ImportError && /truncated|zip/.test(e.message),
  );

  // A central directory that declares a 4 GiB gravity.db: refused unread.
  const bomb = zipSync({ "etc/pihole/gravity.db": enc("x") }, { level: 0 });
  const view = new DataView(bomb.buffer, bomb.byteOffset, bomb.byteLength);
  for (let i = 0; i + 4 <= bomb.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x02014b50) view.setUint32(i + 24, 0xfffffff0, true);
    if (sig === 0x04034b50) view.setUint32(i + 22, 0xfffffff0, true);
  }
  await Deno.writeFile(file("bomb.zip"), bomb);
  await assert.rejects(
    importPihole(file("bomb.zip")),
    (e: Error) => e instanceof ImportError && /more than/.test(e.message),
  );

  const other = new DatabaseSync(file("other.db"));
  other.exec("CREATE TABLE t (x INTEGER)");
  other.close();
  await assert.rejects(
    importPihole(file("other.db")),
    (e: Error) =>
      e instanceof ImportError &&
      /not Pi-hole's gravity database/.test(e.message),
  );

  await Deno.writeTextFile(file("broken.toml"), "[dns\nupstreams = [");
  await assert.rejects(
    importPihole(file("broken.toml")),
    (e: Error) => e instanceof ImportError && /not valid TOML/.test(e.message),
  );
  await Deno.writeTextFile(file("no-dns.toml"), "[webserver]\nport = 80\n");
  await assert.rejects(
    importPihole(file("no-dns.toml")),
    (e: Error) =>
      e instanceof ImportError && /no \[dns\] table/.test(e.message),
  );
  const empty = await Deno.makeTempDir({ dir: fixture.dir });
  await assert.rejects(
    importPihole(empty),
    (e: Error) => e instanceof ImportError && /neither/.test(e.message),
  );
});

Deno.test("pihole: revServers, blocking modes and upstream forms", async () => {
  await using fixture = await piholeDir();
  const toml = join(fixture.dir, "rev.toml");
  await Deno.writeTextFile(
    toml,
    `[dns]
upstreams = ["192.0.2.1", "2001:db8::1#5353"]
revServers = ["true,192.168.0.0/24,192.168.0.1#53,fritz.box", "false,10.0.0.0/8,10.0.0.1,corp"]
[dns.domain]
name = "fritz.box"
local = true
[dns.blocking]
mode = "IP"
[dns.reply.blocking]
force4 = true
IPv4 = "10.1.1.1"
`,
  );
  const { settings, report, objects } = await importPihole(toml);
  assert.deepEqual(settings.upstreams, {
    groups: {
      default: { servers: ["192.0.2.1", "[2001:db8::1]:5353"] },
      "rev-fritz-box": { servers: ["192.168.0.1:53"] },
    },
    conditional: {
      "0.168.192.in-addr.arpa.": "rev-fritz-box",
      "fritz.box.": "rev-fritz-box",
    },
  });
  assert.deepEqual(settings.blocking, {
    defaultResponse: "customIP",
    customIPs: ["10.1.1.1"],
  });
  assert.ok(!objects.some((o) => o.kind === "DNSZone"), "fritz.box forwarded");
  assert.ok(report.skipped.some((n) => /disabled in Pi-hole/.test(n.detail)));
  assert.equal(upstreamOf("1.2.3.4#x"), undefined);
  assert.deepEqual(reverseZone("fd00::/20"), {
    zone: "0.0.0.d.f.ip6.arpa.",
    prefix: 20,
    widened: false,
  });
  assert.equal(reverseZone("10.1.0.0/12")?.zone, "10.in-addr.arpa.");
});
