/**
 * importAdguard against real AdGuard Home files: AdGuard's own schema-34
 * fixture and a complete schema-28 file as AdGuard Home writes it (read in
 * place), and copies of them with lines added the way AdGuard Home's
 * "Configuration" wiki page writes them (domain upstreams, rewrites,
 * clients). Every object must pass validateObject and every settings
 * section kudurru's own config schema.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { validateObject } from "../api/v1alpha1/validate.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  blockingSchema,
  cacheSchema,
  upstreamsSchema,
} from "../config/schema_resolver.ts";
import { importAdguard } from "./adguard.ts";
import { ImportError, type ImportResult } from "./import_result.ts";

const DATA = new URL(
  "../../../shared/data/imports/",
  import.meta.url,
);
const V28 = new URL(
  "adguardhome/AdGuardHome.adguardhome-sync-e2e.yaml",
  DATA,
).pathname;
const V34 = new URL(
  "adguardhome/AdGuardHome.configmigrate-v34-output.yml",
  DATA,
).pathname;
const BLOCKY = new URL("blocky/config.yml", DATA).pathname;

/** Objects valid and uniquely named; settings valid for kudurru.yaml. */
function assertSound(result: ImportResult): void {
  const keys = new Set<string>();
  for (const object of result.objects) {
    const v = validateObject(object);
    assert.ok(
      v.ok,
      `${object.kind}/${object.metadata.name}: ${JSON.stringify(v)}`,
    );
    const key = `${object.kind}/${object.metadata.name}`;
    assert.ok(!keys.has(key), `duplicate ${key}`);
    keys.add(key);
  }
  const s = result.settings;
  if (s.upstreams) {
    const parsed = upstreamsSchema.safeParse(s.upstreams);
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  }
  if (s.cache) assert.ok(cacheSchema.safeParse(s.cache).success);
  if (s.blocking) assert.ok(blockingSchema.safeParse(s.blocking).success);
  // No invalid object was dropped.
  assert.ok(!result.report.skipped.some((n) => n.detail.startsWith("invalid")));
}

function find(result: ImportResult, kind: string, name: string): KObject {
  const object = result.objects.find((o) =>
    o.kind === kind && o.metadata.name === name
  );
  assert.ok(object, `no ${kind}/${name} in ${names(result)}`);
  return object;
}

function names(result: ImportResult): string[] {
  return result.objects.map((o) => `${o.kind}/${o.metadata.name}`);
}

function skippedAt(result: ImportResult, where: string): string {
  const note = result.report.skipped.find((n) => n.where === where);
  assert.ok(note, `nothing skipped at ${where}`);
  return note.detail;
}

/** A real file changed in memory, written to a temporary file. */
async function modified(
  path: string,
  // deno-lint-ignore no-explicit-any -- YAML of any shape, edited in place
  change: (config: Record<string, any>) => void,
): Promise<string> {
  const config = YAML.parse(await Deno.readTextFile(path));
  change(config);
  const dir = await Deno.makeTempDir({ prefix: "kudurru-adguard-" });
  const file = join(dir, "AdGuardHome.yaml");
  await Deno.writeTextFile(file, YAML.stringify(config));
  return file;
}

Deno.test("adguard: the schema-28 file AdGuard Home wrote", async () => {
  const result = await importAdguard(V28);
  assertSound(result);
  assert.deepEqual(result.settings, {
    upstreams: {
      groups: { default: { servers: ["8.8.8.8"], strategy: "rtt_weighted" } },
      bootstrap: ["1.1.1.1:53"],
    },
    blocking: { defaultResponse: "zeroIP", blockTTL: "10s" },
    cache: { maxEntries: 32768, serveStale: { enabled: true } },
  });
  assert.deepEqual(names(result), [
    "BlockList/adguard-dns-filter",
    "BlockList/adguard-adaway-default-blocklist",
    "BlockList/adguard-user-rules",
    "DNSZone/foo.com",
    "DNSZone/bar.com",
    "DNSRecordSet/foo.com",
    "DNSRecordSet/bar.com",
    "ClientGroup/default",
    "Policy/default",
    "ClientGroup/device-1",
    "Policy/device-1",
  ]);
  assert.deepEqual(find(result, "BlockList", "adguard-dns-filter").spec, {
    mode: "block",
    sources: [{
      url: "https://adguardteam.github.io/AdGuardSDNSFilter/Filters/filter.txt",
      name: "AdGuard DNS filter",
    }],
  });
  const rules = find(result, "BlockList", "adguard-user-rules").spec as {
    sources: { inline: string; format: string }[];
  };
  assert.equal(rules.sources[0]!.format, "adblock");
  assert.match(rules.sources[0]!.inline, /^\|\|facebook\.com\^\$important$/m);
  assert.deepEqual(find(result, "DNSRecordSet", "foo.com").spec, {
    zoneRef: { name: "foo.com" },
    endpoints: [{ dnsName: "foo.com.", recordType: "A", targets: ["1.2.3.4"] }],
  });
  const lists = [
    "adguard-dns-filter",
    "adguard-adaway-default-blocklist",
    "adguard-user-rules",
  ];
  assert.deepEqual(find(result, "Policy", "default").spec, {
    clientGroupRefs: ["default"],
    blockListRefs: lists,
    blockedServices: ["9gag", "dailymotion", "disneyplus"],
    safeSearch: true,
  });
  // Device 1 follows the global filtering but blocks its own services.
  assert.deepEqual(find(result, "ClientGroup", "device-1").spec, {
    clients: [{ ip: "2.2.2.2", name: "Device 1" }],
  });
  assert.deepEqual(find(result, "Policy", "device-1").spec, {
    clientGroupRefs: ["device-1"],
    blockListRefs: lists,
    blockedServices: ["facebook", "mail_ru", "qq", "vk", "ok"],
    safeSearch: true,
  });
  assert.ok(
    result.report.mapped.some((n) =>
      n.where === "schema_version" && n.what === "schema_version 28"
    ),
  );
  assert.match(skippedAt(result, "users"), /bcrypt/);
  assert.match(
    skippedAt(result, "filtering.blocked_services.schedule"),
    /pause window/,
  );
  assert.match(skippedAt(result, "dhcp"), /DHCP/);
  assert.match(skippedAt(result, "dns.refuse_any"), /no counterpart/);
  // Keys that say "off" are not noise in the report.
  assert.ok(
    !result.report.skipped.some((n) => n.where === "dns.aaaa_disabled"),
  );
});

Deno.test("adguard: AdGuard's own schema-34 fixture", async () => {
  const result = await importAdguard(V34);
  assertSound(result);
  assert.deepEqual(result.settings.upstreams, {
    groups: { default: { servers: ["tls://1.1.1.1", "tls://1.0.0.1"] } },
    bootstrap: ["8.8.8.8:53"],
  });
  assert.deepEqual(result.settings.cache, {
    maxEntries: 32768,
    serveStale: { answerTTL: "30s", ttl: "12h" },
  });
  assert.match(skippedAt(result, "dns.upstream_dns[2]"), /DNS-over-QUIC/);
  // The placeholder FILEPATH is a local file, which kudurru cannot read.
  assert.match(skippedAt(result, "filters[1]"), /local file/);
  assert.deepEqual(find(result, "BlockList", "adguard-adaway").spec, {
    mode: "block",
    sources: [{
      url: "https://adaway.org/hosts.txt",
      name: "AdAway",
      enabled: false,
    }],
  });
  assert.deepEqual(find(result, "ClientGroup", "localhost").spec, {
    clients: [
      { ip: "127.0.0.1", name: "localhost" },
      { mac: "aa:aa:aa:aa:aa:aa", name: "localhost" },
    ],
  });
  // use_global_settings: true, so its own safe_search does not count.
  assert.deepEqual(find(result, "Policy", "default").spec, {
    clientGroupRefs: ["default", "localhost"],
    blockListRefs: ["adguard-adaway"],
    blockedServices: ["500px"],
    safeSearch: false,
  });
  assert.ok(!names(result).includes("Policy/localhost"));
  assert.deepEqual(find(result, "DNSRecordSet", "test.example").spec, {
    zoneRef: { name: "test.example" },
    endpoints: [{
      dnsName: "test.example.",
      recordType: "A",
      targets: ["192.0.2.0"],
    }],
  });
  assert.ok(
    result.report.mapped.some((n) => n.what === "schema_version 34"),
  );
  assert.match(skippedAt(result, "tls"), /listeners/);
});

Deno.test("adguard: [/domain/] upstream lines become conditional forwarding", async () => {
  const file = await modified(V34, (config) => {
    config.dns.upstream_dns.push(
      "# a comment",
      "[/corp.example/]10.0.0.1",
      "[/a.example/b.example/]10.0.0.2 10.0.0.3:5353",
      "[/other.example/]10.0.0.1",
      "[/www.corp.example/]#",
      "[//]10.0.0.9",
      "[/*.wild.example/]tls://10.0.0.4",
      "[/q.example/]quic://10.0.0.5",
    );
    config.dns.upstream_mode = "parallel";
  });
  try {
    const result = await importAdguard(file);
    assertSound(result);
    const upstreams = result.settings.upstreams as Record<string, unknown>;
    assert.deepEqual(upstreams.conditional, {
      "corp.example.": "corp-example",
      "a.example.": "a-example",
      "b.example.": "a-example",
      "other.example.": "corp-example",
      "www.corp.example.": "default",
      "wild.example.": "wild-example",
    });
    assert.deepEqual(upstreams.groups, {
      default: {
        servers: ["tls://1.1.1.1", "tls://1.0.0.1"],
        strategy: "parallel_best",
      },
      "corp-example": { servers: ["10.0.0.1"], strategy: "parallel_best" },
      "a-example": {
        servers: ["10.0.0.2", "10.0.0.3:5353"],
        strategy: "parallel_best",
      },
      "wild-example": {
        servers: ["tls://10.0.0.4"],
        strategy: "parallel_best",
      },
    });
    const at = (i: number) => `dns.upstream_dns[${i}]`;
    assert.match(skippedAt(result, at(8)), /unqualified names/);
    assert.match(skippedAt(result, at(10)), /DNS-over-QUIC/);
    assert.ok(
      result.report.mapped.some((n) =>
        n.where === at(9) && /also covers wild\.example\./.test(n.detail)
      ),
    );
  } finally {
    await Deno.remove(join(file, ".."), { recursive: true });
  }
});

Deno.test("adguard: rewrites, wildcards, CNAMEs and per-client settings", async () => {
  const file = await modified(V28, (config) => {
    config.filtering.rewrites.push(
      { domain: "*.lan.example", answer: "192.0.2.7" },
      { domain: "lan.example", answer: "2001:db8::7" },
      { domain: "nas.lan.example", answer: "192.0.2.8" },
      { domain: "www.foo.com", answer: "foo.com" },
      { domain: "alias.example", answer: "target.example" },
      { domain: "keep.example", answer: "A" },
    );
    config.whitelist_filters = [{
      enabled: true,
      url: "https://example.org/allow.txt",
      name: "Allow",
      id: 3,
    }];
    config.user_rules.push("@@||ok.example^", "! a comment");
    config.clients.persistent.push({
      name: "Kid tablet",
      ids: ["192.168.1.0/24", "AA-BB-CC-DD-EE-FF", "kid-tablet", "not an id!"],
      use_global_settings: false,
      filtering_enabled: false,
      safe_search: { enabled: true },
      use_global_blocked_services: true,
      upstreams: ["9.9.9.9", "[/x.example/]1.1.1.1"],
      ignore_querylog: true,
    });
  });
  try {
    const result = await importAdguard(file);
    assertSound(result);
    assert.deepEqual(find(result, "DNSZone", "lan.example").spec, {
      zoneName: "lan.example.",
      type: "primary",
    });
    assert.deepEqual(
      find(result, "DNSRecordSet", "wildcard.lan.example").spec,
      {
        zoneRef: { name: "lan.example" },
        endpoints: [{
          dnsName: "*.lan.example.",
          recordType: "A",
          targets: ["192.0.2.7"],
        }],
      },
    );
    assert.deepEqual(
      (find(result, "DNSRecordSet", "lan.example").spec as {
        endpoints: unknown[];
      }).endpoints,
      [{
        dnsName: "lan.example.",
        recordType: "AAAA",
        targets: ["2001:db8::7"],
      }],
    );
    assert.deepEqual(find(result, "DNSRecordSet", "www.foo.com").spec, {
      zoneRef: { name: "foo.com" },
      endpoints: [{
        dnsName: "www.foo.com.",
        recordType: "CNAME",
        targets: ["foo.com."],
      }],
    });
    assert.match(skippedAt(result, "filtering.rewrites[6]"), /zone apex/);
    assert.match(
      skippedAt(result, "filtering.rewrites[7]"),
      /keeps the upstream/,
    );
    assert.ok(!names(result).includes("DNSZone/alias.example"));

    assert.equal(
      (find(result, "BlockList", "adguard-allow").spec as { mode: string })
        .mode,
      "allow",
    );
    const exceptions = find(result, "BlockList", "adguard-user-exceptions")
      .spec as { mode: string; sources: { inline: string }[] };
    assert.equal(exceptions.mode, "allow");
    assert.equal(exceptions.sources[0]!.inline, "@@||ok.example^\n");

    assert.deepEqual(find(result, "ClientGroup", "kid-tablet").spec, {
      clients: [
        { cidr: "192.168.1.0/24", name: "Kid tablet" },
        { mac: "aa:bb:cc:dd:ee:ff", name: "Kid tablet" },
        { clientID: "kid-tablet", name: "Kid tablet" },
      ],
    });
    assert.match(skippedAt(result, "clients.persistent[1].ids[3]"), /ClientID/);
    // Filtering off: no lists; its own upstreams; out of the query log.
    assert.deepEqual(find(result, "Policy", "kid-tablet").spec, {
      clientGroupRefs: ["kid-tablet"],
      blockedServices: ["9gag", "dailymotion", "disneyplus"],
      safeSearch: true,
      upstreamGroup: "client-kid-tablet",
      queryLog: false,
    });
    const groups = (result.settings.upstreams as {
      groups: Record<string, unknown>;
    }).groups;
    assert.deepEqual(groups["client-kid-tablet"], { servers: ["9.9.9.9"] });
    assert.match(
      skippedAt(result, "clients.persistent[1].upstreams[1]"),
      /per-client domain-specific/,
    );
    assert.deepEqual(
      (find(result, "Policy", "default").spec as { allowListRefs: string[] })
        .allowListRefs,
      ["adguard-allow", "adguard-user-exceptions"],
    );
  } finally {
    await Deno.remove(join(file, ".."), { recursive: true });
  }
});

Deno.test("adguard: the keys of schemas before 26 are read under dns", async () => {
  const file = await modified(V28, (config) => {
    const { rewrites, blocking_mode, blocked_services } = config.filtering;
    delete config.filtering;
    config.schema_version = 24;
    Object.assign(config.dns, {
      rewrites,
      blocking_mode,
      blocked_services: blocked_services.ids,
      blocking_ipv4: "192.0.2.1",
    });
    config.dns.blocking_mode = "custom_ip";
    delete config.dns.upstream_mode;
    config.dns.all_servers = true;
  });
  try {
    const result = await importAdguard(file);
    assertSound(result);
    assert.deepEqual(result.settings.blocking, {
      defaultResponse: "customIP",
      customIPs: ["192.0.2.1"],
    });
    assert.ok(names(result).includes("DNSRecordSet/foo.com"));
    assert.deepEqual(
      (find(result, "Policy", "default").spec as { blockedServices: string[] })
        .blockedServices,
      ["9gag", "dailymotion", "disneyplus"],
    );
    assert.equal(
      (result.settings.upstreams as {
        groups: { default: { strategy: string } };
      }).groups.default.strategy,
      "parallel_best",
    );
    assert.ok(
      result.report.mapped.some((n) => /before schema 26/.test(n.detail)),
    );
  } finally {
    await Deno.remove(join(file, ".."), { recursive: true });
  }
});

Deno.test("adguard: broken YAML and other tools' files are ImportErrors", async () => {
  const broken = (text: string) => async (path: string) => {
    assert.equal(path, "/AdGuardHome.yaml");
    return await Promise.resolve(new TextEncoder().encode(text));
  };
  await assert.rejects(
    importAdguard(
      "/AdGuardHome.yaml",
      broken("dns:\n  upstream_dns: [8.8.8.8\n"),
    ),
    (e: unknown) =>
      e instanceof ImportError && /is not valid YAML/.test(e.message),
  );
  await assert.rejects(
    importAdguard(BLOCKY),
    (e: unknown) =>
      e instanceof ImportError &&
      /not an AdGuard Home configuration.*blocky config\.yml/.test(e.message),
  );
  await assert.rejects(
    importAdguard("/AdGuardHome.yaml", broken("- a\n- list\n")),
    (e: unknown) => e instanceof ImportError && /a list/.test(e.message),
  );
  await assert.rejects(
    importAdguard("/nonexistent/AdGuardHome.yaml"),
    (e: unknown) => e instanceof ImportError && /Cannot read/.test(e.message),
  );
});

Deno.test("adguard: unknown keys are reported as skipped", async () => {
  const result = await importAdguard(
    "AdGuardHome.yaml",
    () =>
      Promise.resolve(
        new TextEncoder().encode(
          "schema_version: 40\ndns:\n  upstream_dns: [9.9.9.9]\n  brand_new: 1\nsurprise: yes\n",
        ),
      ),
  );
  assertSound(result);
  assert.match(skippedAt(result, "schema_version"), /newer than 34/);
  assert.match(skippedAt(result, "dns.brand_new"), /not an AdGuard Home key/);
  assert.match(skippedAt(result, "surprise"), /not an AdGuard Home key/);
});
