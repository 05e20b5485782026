/**
 * importBlocky against blocky's own documented config.yml (v0.34) and its
 * v0.23 predecessor with the legacy blackLists/whiteLists keys, inline
 * variants for what those files lack (customDNS.zone, the "." conditional
 * key, blockType IPs), and other tools' YAML, which must be refused.
 */
import assert from "node:assert/strict";
import { validateObject } from "../api/v1alpha1/validate.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { importBlocky } from "./blocky.ts";
import { ImportError, type ImportResult } from "./import_result.ts";

const DATA = new URL("../../../shared/data/imports/", import.meta.url);
const CONFIG = new URL("blocky/config.yml", DATA).pathname;
const CONFIG_V023 = new URL("blocky/config.v0.23.yml", DATA).pathname;
const ADGUARD =
  new URL("adguardhome/AdGuardHome.configmigrate-v34-output.yml", DATA)
    .pathname;

/** The ImportError `run` rejects with. */
async function importError(run: () => Promise<unknown>): Promise<ImportError> {
  try {
    await run();
  } catch (e) {
    assert(e instanceof ImportError, String(e));
    return e;
  }
  throw new assert.AssertionError({ message: "no ImportError" });
}

const text = (yaml: string) => () =>
  Promise.resolve(new TextEncoder().encode(yaml));

function find(r: ImportResult, kind: string, name: string): KObject {
  const o = r.objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert(o, `${kind} ${name} in ${r.objects.map((o) => o.metadata.name)}`);
  return o;
}

// deno-lint-ignore no-explicit-any -- specs are read loosely in assertions
const spec = (o: KObject) => o.spec as any;

function skippedAt(r: ImportResult, where: string): string {
  const note = r.report.skipped.find((n) => n.where === where);
  assert(note, `no skipped note at ${where}`);
  return note.detail;
}

Deno.test("config.yml: upstream groups, strategy, timeout, bootstrap, conditional", async () => {
  const r = await importBlocky(CONFIG);
  assert.deepEqual(r.settings.upstreams, {
    groups: {
      default: {
        servers: [
          "5.9.164.112",
          "1.1.1.1",
          "tls://fdns1.dismail.de:853",
          "https://dns.digitale-gesellschaft.ch/dns-query",
        ],
        strategy: "parallel_best",
        timeout: "2s",
      },
      laptop: {
        servers: ["123.123.123.123"],
        strategy: "parallel_best",
        timeout: "2s",
      },
      "fritz-box": { servers: ["192.168.178.1"], strategy: "strict" },
      "lan-net": {
        servers: ["192.168.178.1", "192.168.178.2"],
        strategy: "strict",
      },
    },
    conditional: { "fritz.box.": "fritz-box", "lan.net.": "lan-net" },
    bootstrap: ["1.1.1.1"],
  });
  assert(skippedAt(r, "upstreams.groups.default[4]").includes("QUIC"));
  assert(skippedAt(r, "upstreams.groups.default[5]").includes("sdns://"));
  assert(skippedAt(r, "upstreams.groups.default[6]").includes("sdns://"));
  assert(skippedAt(r, "bootstrapDns[1]").includes("plain DNS"));
  assert(skippedAt(r, "bootstrapDns[2]").includes("encrypted"));
  assert(skippedAt(r, "conditional.rewrite").includes("rewrite"));
  assert(skippedAt(r, "conditional.fallbackUpstream").includes("fallback"));
});

Deno.test("config.yml: customDNS.mapping is a zone with the name and its wildcard", async () => {
  const r = await importBlocky(CONFIG);
  assert.deepEqual(spec(find(r, "DNSZone", "printer.lan")), {
    zoneName: "printer.lan.",
    type: "primary",
  });
  const endpoints = spec(find(r, "DNSRecordSet", "printer.lan")).endpoints;
  assert.deepEqual(
    endpoints.map((e: { dnsName: string; recordType: string }) =>
      `${e.dnsName} ${e.recordType}`
    ),
    [
      "printer.lan. A",
      "*.printer.lan. A",
      "printer.lan. AAAA",
      "*.printer.lan. AAAA",
    ],
  );
  assert.deepEqual(endpoints[1].targets, ["192.168.178.3"]);
  assert.deepEqual(endpoints[0].recordTTL, 3600); // customTTL: 1h
  assert(skippedAt(r, "customDNS.rewrite").includes("rewrite"));
});

Deno.test("config.yml: block lists, client groups, policies and schedules", async () => {
  const r = await importBlocky(CONFIG);
  const ads = spec(find(r, "BlockList", "ads"));
  assert.deepEqual(ads.mode, "block");
  assert.deepEqual(ads.sources.length, 5);
  assert.deepEqual(ads.sources[0], {
    url: "https://s3.amazonaws.com/lists.disconnect.me/simple_ad.txt",
  });
  assert(ads.sources[4].inline.includes("*.example.com"));
  const allow = spec(find(r, "BlockList", "ads-allow"));
  assert.deepEqual(allow.mode, "allow");
  assert.deepEqual(allow.sources.length, 1); // allowlist.txt is a local file
  assert(allow.sources[0].inline.includes("/^banners?[_.-]/"));
  assert(skippedAt(r, "blocking.allowlists.ads[0]").includes("local file"));

  assert.deepEqual(spec(find(r, "ClientGroup", "laptop")).clients, [
    { hostname: "laptop*" },
    // clientLookup.clients names 192.168.178.29 "laptop".
    { ip: "192.168.178.29", name: "laptop" },
  ]);
  assert.deepEqual(spec(find(r, "ClientGroup", "192.168.178.1-24")).clients, [
    { cidr: "192.168.178.1/24" },
  ]);
  assert.deepEqual(spec(find(r, "Policy", "laptop")), {
    clientGroupRefs: ["laptop"],
    blockListRefs: ["ads"],
    allowListRefs: ["ads-allow"],
    upstreamGroup: "laptop",
  });
  // "special" has listSchedules: the default Policy holds only "ads".
  assert.deepEqual(spec(find(r, "Policy", "default")), {
    clientGroupRefs: ["default"],
    blockListRefs: ["ads"],
    allowListRefs: ["ads-allow"],
  });
  assert.deepEqual(spec(find(r, "Policy", "default-workhours")), {
    clientGroupRefs: ["default"],
    blockListRefs: ["special"],
    schedule: {
      weekdays: ["mon", "tue", "wed", "thu", "fri"],
      start: "08:00",
      end: "18:00",
    },
  });
  assert.deepEqual(spec(find(r, "Policy", "default-weekend")).schedule, {
    weekdays: ["sat", "sun"],
    start: "00:00",
    end: "00:00",
  });
  assert.deepEqual(
    spec(find(r, "Policy", "192.168.178.1-24-weekend")).blockListRefs,
    ["special"],
  );
  assert.deepEqual(r.settings.blocking, {
    defaultResponse: "zeroIP",
    blockTTL: "1m",
    refreshInterval: "24h",
    initStrategy: "failOnError",
  });
});

Deno.test("config.yml: caching, skipped top-level keys, valid unique objects", async () => {
  const r = await importBlocky(CONFIG);
  assert.deepEqual(r.settings.cache, {
    minTTL: "5m",
    maxTTL: "30m",
    negativeTTL: "30m",
    prefetch: { threshold: 5, window: "2h" },
  });
  assert(skippedAt(r, "caching.maxItemsCount").includes("unlimited"));
  for (
    const key of [
      "ports",
      "prometheus",
      "redis",
      "queryLog",
      "hostsFile",
      "log",
      "dnssec",
      "connectIPVersion",
    ]
  ) {
    assert.deepEqual(
      r.report.skipped.filter((n) => n.where === key).length,
      1,
      key,
    );
  }
  const keys = new Set<string>();
  for (const o of r.objects) {
    const v = validateObject(o);
    assert(v.ok, `${o.kind} ${o.metadata.name}: ${JSON.stringify(v)}`);
    const key = `${o.kind}/${o.metadata.name}`;
    assert(!keys.has(key), `duplicate ${key}`);
    keys.add(key);
  }
});

Deno.test("config.v0.23.yml: blackLists/whiteLists map like denylists/allowlists", async () => {
  const old = await importBlocky(CONFIG_V023);
  const now = await importBlocky(CONFIG);
  assert.deepEqual(
    spec(find(old, "BlockList", "ads")),
    spec(find(now, "BlockList", "ads")),
  );
  assert.deepEqual(
    spec(find(old, "BlockList", "special")),
    spec(find(now, "BlockList", "special")),
  );
  const allow = spec(find(old, "BlockList", "ads-allow"));
  assert.deepEqual(allow.mode, "allow");
  assert(allow.sources[0].inline.includes("whitelistdomain.com"));
  assert(skippedAt(old, "blocking.whiteLists.ads[0]").includes("local file"));
  // No schedules before v0.24: "special" stays in the default Policy.
  assert.deepEqual(spec(find(old, "Policy", "default")).blockListRefs, [
    "ads",
    "special",
  ]);
  assert.deepEqual(old.settings.upstreams, now.settings.upstreams);
  for (const o of old.objects) assert(validateObject(o).ok, o.metadata.name);
});

Deno.test("inline config: zone text, '.' conditional, reverse zone, custom block IPs, legacy upstream", async () => {
  const r = await importBlocky(
    "inline.yml",
    text(`
upstream:
  default: [tcp:9.9.9.9, "udp:[2001:db8::1]:53", tcp-tls:1.1.1.1#cloudflare-dns.com]
  10.0.0.5: [1.0.0.1]
conditional:
  mapping:
    .: 192.168.1.1
    1.168.192.in-addr.arpa: 192.168.1.1
customDNS:
  mapping:
    nas.home: nas.example.net
  zone: |
    $ORIGIN example.com.
    www 3600 A 1.2.3.4
    www 3600 AAAA 2001:db8:85a3::8a2e:370:7334
    @ 3600 CNAME www
blocking:
  blockType: 192.0.2.7, 2001:db8::7
  allowlists:
    kids:
      - |
        school.example
  clientGroupsBlock:
    10.0.0.5: [kids]
unknownKey: 1
`),
  );
  assert.deepEqual(
    (r.settings.upstreams as { groups: Record<string, unknown> }).groups
      .default,
    {
      servers: [
        "tcp://9.9.9.9",
        "[2001:db8::1]:53",
        "tls://1.1.1.1#cloudflare-dns.com",
      ],
    },
  );
  assert(
    skippedAt(r, "conditional.mapping..").includes("unqualified") ||
      skippedAt(r, "conditional.mapping..").includes("without a dot"),
  );
  assert.deepEqual(
    (r.settings.upstreams as { conditional: unknown }).conditional,
    { "1.168.192.in-addr.arpa.": "1-168-192-in-addr-arpa" },
  );
  assert.deepEqual(spec(find(r, "DNSRecordSet", "nas.home")).endpoints[1], {
    dnsName: "*.nas.home.",
    recordType: "CNAME",
    targets: ["nas.example.net."],
    recordTTL: 3600,
  });
  assert.deepEqual(
    spec(find(r, "DNSZone", "example.com")).zoneName,
    "example.com.",
  );
  assert.deepEqual(spec(find(r, "DNSRecordSet", "example.com")).endpoints, [
    {
      dnsName: "www.example.com.",
      recordType: "A",
      targets: ["1.2.3.4"],
      recordTTL: 3600,
    },
    {
      dnsName: "www.example.com.",
      recordType: "AAAA",
      targets: ["2001:db8:85a3::8a2e:370:7334"],
      recordTTL: 3600,
    },
    {
      dnsName: "example.com.",
      recordType: "CNAME",
      targets: ["www.example.com."],
      recordTTL: 3600,
    },
  ]);
  assert.deepEqual(r.settings.blocking, {
    defaultResponse: "customIP",
    customIPs: ["192.0.2.7", "2001:db8::7"],
  });
  // An allow-list-only group walls its clients in, as in blocky.
  assert.deepEqual(spec(find(r, "Policy", "10.0.0.5")), {
    clientGroupRefs: ["10.0.0.5"],
    allowListRefs: ["kids-allow"],
    allowOnly: true,
    upstreamGroup: "10-0-0-5",
  });
  assert.deepEqual(spec(find(r, "ClientGroup", "10.0.0.5")).clients, [{
    ip: "10.0.0.5",
  }]);
  assert.deepEqual(skippedAt(r, "unknownKey"), "not a blocky key");
  for (const o of r.objects) assert(validateObject(o).ok, o.metadata.name);
});

Deno.test("other YAML is refused with what it is", async () => {
  const agh = await importError(() => importBlocky(ADGUARD));
  assert(agh.message.includes("AdGuard Home"), agh.message);
  const broken = await importError(
    () =>
      importBlocky("broken.yml", text("upstreams:\n  groups: [a\n  - b: }\n")),
  );
  assert(broken.message.includes("not valid YAML"), broken.message);
  const list = await importError(() =>
    importBlocky("list.yml", text("- a\n- b\n"))
  );
  assert(list.message.includes("list"), list.message);
  const other = await importError(() =>
    importBlocky("other.yml", text("server:\n  port: 53\n"))
  );
  assert(other.message.includes("none of blocky's keys"), other.message);
  const objects = await importError(() =>
    importBlocky("o.yml", text("apiVersion: v1\nkind: List\nitems: []\n"))
  );
  assert(objects.message.includes("objects"), objects.message);
});
