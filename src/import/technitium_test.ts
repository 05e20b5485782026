/**
 * importTechnitium on the Advanced Blocking and Advanced Forwarding apps'
 * shipped configs (read in place), and on a zone export, a settings JSON
 * and a binary zone file written as Technitium writes them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { ImportError } from "./import_result.ts";
import { importTechnitium } from "./technitium.ts";

const DATA = fileURLToPath(
  new URL("../../../shared/data/imports/technitium/", import.meta.url),
);

/** A zone export as Technitium's zone file writer lays it out. */
const ZONE_EXPORT = [
  "$ORIGIN example.com.",
  "@ 900 IN SOA ns1.example.com. hostmaster.example.com. 7 900 300 604800 900",
  "@ 3600 IN NS ns1.example.com.",
  "ns1 3600 IN A 192.0.2.53",
  "www 3600 IN A 192.0.2.10 ;web front",
  "old 3600 IN A 192.0.2.99 ;" +
  JSON.stringify({ disabled: true, comments: "retired" }),
  'txt 3600 IN TXT "v=spf1 -all; not a comment"',
  "corp 3600 IN FWD Udp 192.0.2.1 False DefaultProxy 0",
  'geo 3600 IN APP "Geo Continent" GeoContinent.App -',
  "",
].join("\n");

/** The sample of "Get DNS Settings" in Technitium's API documentation, cut to what matters. */
const SETTINGS = {
  response: {
    version: "15.2",
    dnsServerDomain: "server1",
    recursion: "AllowOnlyForPrivateNetworks",
    tsigKeys: [{
      keyName: "home",
      sharedSecret: "E9crgbHbzgEI+e+/pBmARRif70ScKf2sc/FjrgnCWyc=",
      algorithmName: "hmac-sha256",
    }],
    enableBlocking: true,
    blockingBypassList: ["192.168.10.5"],
    blockingType: "NxDomain",
    blockingAnswerTtl: 30,
    customBlockingAddresses: ["127.0.0.1"],
    blockListUrls: [
      "https://raw.githubusercontent.com/StevenBlack/hosts/master/hosts",
      "https://big.oisd.nl/",
    ],
    blockListUpdateIntervalHours: 24,
    proxy: null,
    forwarders: ["192.168.10.7", "dns.quad9.net (9.9.9.9:853)"],
    forwarderProtocol: "Tls",
    concurrentForwarding: true,
    forwarderTimeout: 2000,
  },
  server: "server1",
  status: "ok",
};

async function dirWith(files: Record<string, string | Uint8Array>) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-technitium-" });
  for (const [name, body] of Object.entries(files)) {
    if (typeof body === "string") {
      await Deno.writeTextFile(join(dir, name), body);
    } else await Deno.writeFile(join(dir, name), body);
  }
  return dir;
}

function find(objects: KObject[], kind: string, name: string): KObject {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(
    o,
    `${kind} ${name} in ${
      objects.map((x) => `${x.kind}/${x.metadata.name}`).join(", ")
    }`,
  );
  return o;
}

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("importTechnitium: a zone export with disabled, FWD and APP records", async () => {
  const dir = await dirWith({ "example.com.zone": ZONE_EXPORT });
  try {
    const { objects, settings, report } = await importTechnitium(dir);
    for (const o of objects) assert.ok(validateObject(o).ok, o.metadata.name);
    const zone = find(objects, "DNSZone", "example-com").spec as Any;
    assert.equal(zone.type, "primary");
    assert.equal(zone.soa.mname, "ns1.example.com.");
    assert.deepEqual(zone.nameservers, ["ns1.example.com."]);
    const endpoints =
      (find(objects, "DNSRecordSet", "example-com-technitium").spec as Any)
        .endpoints;
    const byName = (n: string) => endpoints.filter((e: Any) => e.dnsName === n);
    assert.deepEqual(byName("www.example.com.")[0].targets, ["192.0.2.10"]);
    assert.equal(byName("www.example.com.")[0].kudurru.comment, "web front");
    const old = byName("old.example.com.")[0];
    assert.deepEqual(old.kudurru, { disabled: true, comment: "retired" });
    assert.deepEqual(old.targets, ["192.0.2.99"]);
    // The ";" inside the quoted TXT is data, not a comment.
    assert.equal(byName("txt.example.com.")[0].kudurru, undefined);
    // FWD below the apex: conditional forwarding of that subtree.
    const upstreams = settings.upstreams as Any;
    assert.deepEqual(upstreams.conditional, {
      "corp.example.com.": "corp-example-com",
    });
    assert.deepEqual(upstreams.groups["corp-example-com"].servers, [
      "192.0.2.1",
    ]);
    assert.equal(byName("corp.example.com.").length, 0);
    // APP is skipped with the reason; nothing else is.
    const app = report.skipped.find((s) => s.where === "example.com.zone:9");
    assert.match(app?.detail ?? "", /APP record \(DNS app "Geo Continent"\)/);
    assert.equal(report.skipped.length, 1, JSON.stringify(report.skipped));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importTechnitium: a forwarder zone becomes a forward DNSZone", async () => {
  const text = [
    "$ORIGIN corp.example.",
    "@ 900 IN SOA server1. hostmaster.server1. 1 900 300 604800 900",
    "@ 3600 IN FWD Tls dns.quad9.net (9.9.9.9) True DefaultProxy 1",
    "@ 3600 IN FWD Quic dns.example False NoProxy 0",
    "",
  ].join("\n");
  const dir = await dirWith({ "corp.example.txt": text });
  try {
    const { objects, settings, report } = await importTechnitium(dir);
    const zone = find(objects, "DNSZone", "corp-example").spec as Any;
    assert.deepEqual(zone, {
      zoneName: "corp.example.",
      type: "forward",
      forward: { upstreamGroup: "corp-example", dnssecValidation: true },
    });
    assert.deepEqual(
      (settings.upstreams as Any).groups["corp-example"].servers,
      [
        "tls://9.9.9.9#dns.quad9.net",
      ],
    );
    assert.ok(report.skipped.some((s) => /DNS-over-QUIC/.test(s.detail)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importTechnitium: the settings JSON", async () => {
  const dir = await dirWith({
    "settings.json": JSON.stringify(SETTINGS, null, 2),
    "blocked.txt": "ads.example\ntracker.example\n",
  });
  try {
    const { objects, settings, report } = await importTechnitium(dir);
    for (const o of objects) assert.ok(validateObject(o).ok, o.metadata.name);
    const upstreams = settings.upstreams as Any;
    assert.deepEqual(upstreams.groups.default, {
      servers: ["tls://192.168.10.7", "tls://9.9.9.9:853#dns.quad9.net"],
      strategy: "parallel_best",
      timeout: "2000ms",
    });
    assert.deepEqual(settings.blocking, {
      defaultResponse: "nxdomain",
      blockTTL: "30s",
      refreshInterval: "24h",
    });
    const lists = objects.filter((o) => o.kind === "BlockList");
    assert.deepEqual(
      lists.map((l) =>
        (l.spec as Any).sources[0].url ?? (l.spec as Any).sources[0].inline
      ),
      [
        "||ads.example^\n||tracker.example^\n",
        "https://raw.githubusercontent.com/StevenBlack/hosts/master/hosts",
        "https://big.oisd.nl/",
      ],
    );
    const policy = find(objects, "Policy", "default").spec as Any;
    assert.deepEqual(policy.blockListRefs, lists.map((l) => l.metadata.name));
    assert.deepEqual(
      (find(objects, "ClientGroup", "technitium-blocking-bypass").spec as Any)
        .clients,
      [{ ip: "192.168.10.5" }],
    );
    const tsig = report.skipped.find((s) => s.what === "TSIG keys home");
    assert.ok(tsig);
    assert.ok(
      !JSON.stringify(report).includes("E9crgb"),
      "no secret in the report",
    );
    assert.ok(report.skipped.some((s) => s.what.startsWith("recursion")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importTechnitium: the Advanced Blocking app's shipped config", async () => {
  const { objects, report } = await importTechnitium(
    join(DATA, "AdvancedBlockingApp.dnsApp.config"),
  );
  for (const o of objects) assert.ok(validateObject(o).ok, o.metadata.name);
  assert.deepEqual((find(objects, "ClientGroup", "kids").spec as Any).clients, [
    { ip: "192.168.10.20" },
  ]);
  assert.deepEqual(
    (find(objects, "ClientGroup", "everyone-else").spec as Any).clients,
    [
      { cidr: "0.0.0.0/0" },
      { cidr: "::/0" },
    ],
  );
  const kids = find(objects, "Policy", "kids").spec as Any;
  assert.equal(kids.priority, 33);
  assert.equal(kids.blockMode, "nxdomain");
  assert.equal(kids.blockTTL, "30s");
  const social = find(objects, "BlockList", kids.blockListRefs[0]).spec as Any;
  assert.equal(
    social.sources[0].url,
    "https://raw.githubusercontent.com/StevenBlack/hosts/master/alternates/social/hosts",
  );
  assert.deepEqual(social.response, {
    mode: "customIP",
    customIPs: ["192.168.10.2"],
  });
  assert.equal(social.refreshInterval, "1440m");
  const everyone = find(objects, "Policy", "everyone-else").spec as Any;
  assert.equal(everyone.priority, 1);
  const inline = everyone.blockListRefs.map((n: string) =>
    (find(objects, "BlockList", n).spec as Any).sources[0]
  );
  assert.ok(
    inline.some((s: Any) =>
      s.inline === "||example.com^\n" && s.format === "adblock"
    ),
  );
  assert.ok(
    inline.some((s: Any) => s.inline === "^ads\\.\n" && s.format === "regex"),
  );
  // "bypass" is named only by localEndPointGroupMap, which has no counterpart.
  assert.equal(
    report.skipped.filter((s) => s.where.endsWith("localEndPointGroupMap"))
      .length,
    4,
  );
  assert.ok(report.skipped.some((s) => s.what === 'group "bypass"'));
});

Deno.test("importTechnitium: the Advanced Forwarding app's shipped config", async () => {
  const path = join(DATA, "AdvancedForwardingApp.dnsApp.config");
  // As shipped the app is off: nothing to forward.
  const shipped = await importTechnitium(path);
  assert.deepEqual(shipped.settings, {});
  assert.match(shipped.report.skipped[0]!.detail, /enableForwarding is false/);
  // Turned on, its domains become conditional forwarding.
  const config = JSON.parse(await Deno.readTextFile(path));
  config.enableForwarding = true;
  const dir = await dirWith({ "dnsApp.config": JSON.stringify(config) });
  try {
    const { settings, report } = await importTechnitium(dir);
    assert.deepEqual(settings.upstreams, {
      groups: {
        "quad9-doh": { servers: ["https://9.9.9.9/dns-query#dns.quad9.net"] },
        default: { servers: ["tls://1.1.1.1", "tls://8.8.8.8"] },
      },
      conditional: { "example.com.": "quad9-doh" },
    });
    assert.ok(
      report.skipped.some((s) => s.what.startsWith("proxy local-proxy")),
    );
    assert.ok(
      report.skipped.some((s) => /adguard-upstreams\.txt/.test(s.what)),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importTechnitium: a binary DZ zone file is reported, not parsed", async () => {
  // "DZ", version 4, then the zone info (type 1 primary, …) as the backup writes it.
  const binary = new Uint8Array([
    0x44,
    0x5a,
    4,
    14,
    1,
    0,
    0,
    0,
    0x0a,
    0x3b,
    0x24,
  ]);
  const dir = await dirWith({ "example.com.zone": binary });
  try {
    const { objects, report } = await importTechnitium(dir);
    assert.deepEqual(objects, []);
    assert.equal(report.skipped.length, 1);
    assert.match(report.skipped[0]!.detail, /Zones → zone → Export/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importTechnitium: what is not a Technitium export", async () => {
  const dir = await dirWith({
    "named.conf": 'zone "x" { type primary; };\n',
    "notes.txt": "hello world\n",
  });
  try {
    await assert.rejects(importTechnitium(dir), ImportError);
    await assert.rejects(importTechnitium(join(dir, "backup.zip")), /unzip it/);
    await assert.rejects(importTechnitium(join(dir, "missing")), ImportError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
