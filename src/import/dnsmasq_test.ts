/**
 * importDnsmasq against the real dnsmasq files kept as test data (read in
 * place) and against a configuration written per dnsmasq(8)'s syntax into a
 * temporary directory, with its includes and a hosts file.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { validateObject } from "../api/v1alpha1/validate.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { importDnsmasq } from "./dnsmasq.ts";
import { ImportError, type ImportResult } from "./import_result.ts";

const assert: (value: unknown, message?: string) => asserts value =
  nodeAssert.ok;
const assertEquals = <T>(actual: unknown, expected: T) =>
  nodeAssert.deepStrictEqual(actual, expected);
async function assertRejects(
  fn: () => Promise<unknown>,
  type: typeof ImportError,
  includes: string,
): Promise<void> {
  await nodeAssert.rejects(fn, (e: unknown) => {
    assert(e instanceof type, String(e));
    assert(e.message.includes(includes), e.message);
    return true;
  });
}

const DATA = (name: string) =>
  fromFileUrl(
    new URL(`../../../shared/data/imports/dnsmasq/${name}`, import.meta.url),
  );

function find(r: ImportResult, kind: string, name: string): KObject {
  const o = r.objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert(o, `${kind}/${name} in ${r.objects.map((o) => o.metadata.name)}`);
  return o;
}

function allValid(r: ImportResult): void {
  const keys = new Set<string>();
  for (const o of r.objects) {
    const v = validateObject(o);
    assert(v.ok, `${o.kind}/${o.metadata.name}: ${JSON.stringify(v)}`);
    const key = `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    assert(!keys.has(key), `duplicate ${key}`);
    keys.add(key);
  }
}

// deno-lint-ignore no-explicit-any
const spec = (o: KObject) => o.spec as any;

Deno.test("pihole 06-rfc6761.conf: server=/d/ is local-only", async () => {
  const r = await importDnsmasq(DATA("pihole-v5-06-rfc6761.conf"));
  allValid(r);
  assertEquals(r.settings, {});
  // test. and bind. become empty primary zones; localhost., invalid. and
  // onion. are special-use zones kudurru already answers itself.
  assertEquals(
    r.objects.map((o) => `${o.kind} ${spec(o).zoneName} ${spec(o).type}`),
    ["DNSZone bind. primary", "DNSZone test. primary"],
  );
  assertEquals(
    r.report.mapped.filter((n) => n.what.startsWith("server=")).length,
    5,
  );
  assert(
    r.report.mapped.some((n) =>
      n.what === "server=/onion/" && /special-use/.test(n.detail)
    ),
  );
  assertEquals(r.report.skipped, []);
});

Deno.test("apple.china.conf: 164 domains, one upstream group", async () => {
  const r = await importDnsmasq(DATA("apple.china.conf"));
  assertEquals(r.objects, []);
  // deno-lint-ignore no-explicit-any
  const up = r.settings.upstreams as any;
  assertEquals(Object.keys(up.conditional).length, 164);
  assertEquals(Object.keys(up.groups), ["a1-mzstatic-com"]);
  assertEquals(up.groups["a1-mzstatic-com"].servers, ["114.114.114.114"]);
  assertEquals(up.conditional["a1.mzstatic.com."], "a1-mzstatic-com");
  assertEquals(new Set(Object.values(up.conditional)).size, 1);
  assertEquals(r.report.mapped.length, 164);
  assert(r.report.mapped[0]!.where.endsWith("apple.china.conf:1"));
  // No no-resolv: the report says resolv.conf's servers are not imported.
  assertEquals(r.report.skipped.map((n) => n.what), [
    "servers in /etc/resolv.conf",
  ]);
});

Deno.test("libvirt dns-forwarders: default group, strict, # exception", async () => {
  const r = await importDnsmasq(
    DATA("libvirt-nat-network-dns-forwarders.conf"),
  );
  assertEquals(r.objects, []);
  assertEquals(r.settings, {
    upstreams: {
      groups: {
        default: { servers: ["8.8.8.8", "8.8.4.4"], strategy: "strict" },
        "example-com": { servers: ["192.168.1.1"], strategy: "strict" },
      },
      conditional: {
        "example.com.": "example-com",
        "www.example.com.": "default",
      },
    },
  });
  const skipped = r.report.skipped.map((n) => n.what.split("=")[0]);
  assertEquals(skipped, [
    "except-interface",
    "bind-dynamic",
    "interface",
    "addn-hosts",
  ]);
  const hosts = r.report.skipped[3]!;
  assert(hosts.where.endsWith("forwarders.conf:16"));
  assert(/cannot be read/.test(hosts.detail));
});

Deno.test("libvirt dns-hosts: local=/example.com/ + domain= → zone", async () => {
  const r = await importDnsmasq(DATA("libvirt-nat-network-dns-hosts.conf"));
  allValid(r);
  const zone = find(r, "DNSZone", "example-com");
  assertEquals(spec(zone).zoneName, "example.com.");
  assertEquals(spec(zone).type, "primary");
  assertEquals(r.objects.length, 1);
  assertEquals(r.settings, {});
  assert(
    r.report.skipped.some((n) =>
      n.what === "strict-order" && /no upstream group/.test(n.detail)
    ),
  );
  assert(r.report.mapped.some((n) => n.what === "domain=example.com"));
});

Deno.test("dnsmasq.conf.example: all comments → empty result", async () => {
  const r = await importDnsmasq(DATA("dnsmasq.conf.example"));
  assertEquals(r.objects, []);
  assertEquals(r.settings, {});
  assertEquals(r.report.mapped, []);
  assertEquals(r.report.skipped.length, 1);
  assert(/every line is a comment or blank/.test(r.report.skipped[0]!.detail));
});

Deno.test("dnsmasq.conf.example uncommented: 160 options, DHCP summarised", async () => {
  const text = await Deno.readTextFile(DATA("dnsmasq.conf.example"));
  const active = text.split("\n").map((l) =>
    /^# ?[a-z][a-z0-9-]*(=|$)/.test(l) ? l.replace(/^# ?/, "") : l
  ).join("\n");
  const r = await importDnsmasq(
    "dnsmasq.conf",
    (p) =>
      p.endsWith("dnsmasq.conf")
        ? Promise.resolve(new TextEncoder().encode(active))
        : Promise.reject(new Error("not here")),
  );
  allValid(r);
  const total = r.report.mapped.length + r.report.skipped.length;
  assert(total > 40, `${total}`);
  const dhcp = r.report.skipped.filter((n) => /DHCP/.test(n.what));
  assertEquals(dhcp.length, 1);
  assert(/^\d+ DHCP/.test(dhcp[0]!.what));
  assert(Number(dhcp[0]!.what.split(" ")[0]) >= 90);
  // address=/double-click.net/127.0.0.1 → d and *.d.
  const rs = r.objects.filter((o) => o.kind === "DNSRecordSet");
  const endpoints = rs.flatMap((o) => spec(o).endpoints);
  assert(
    endpoints.some((e) =>
      e.dnsName === "*.double-click.net" && e.targets[0] === "127.0.0.1"
    ),
  );
  // cname=bertrand,bert with domain=thekelleys.org.uk.
  assert(
    endpoints.some((e) =>
      e.dnsName === "bertrand.thekelleys.org.uk" && e.recordType === "CNAME"
    ),
  );
  // deno-lint-ignore no-explicit-any
  const up = r.settings.upstreams as any;
  assertEquals(up.conditional["localnet."], "localnet");
  assertEquals(
    up.conditional["3.168.192.in-addr.arpa."],
    "3-168-192-in-addr-arpa",
  );
});

Deno.test("own config per dnsmasq(8): records, blocks, includes, hosts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dnsmasq-" });
  try {
    await Deno.mkdir(join(dir, "conf.d"));
    await Deno.writeTextFile(
      join(dir, "dnsmasq.conf"),
      [
        "# main file",
        "domain=home.example",
        "no-resolv",
        "all-servers",
        "server=192.0.2.53",
        "server=192.0.2.54#5353@eth0",
        "server=//192.0.2.1",
        "address=/nas.example/10.0.0.5",
        "address=/ads.example/doubleclick.example/0.0.0.0",
        "address=/tracker.example/",
        "address=/#/1.2.3.4",
        "host-record=laptop,laptop.home.example,192.168.0.10,2001:db8::10,600",
        "cname=printer,www.home.example,laptop.home.example",
        "cname=laptop,elsewhere.example",
        "mx-host=home.example,mail.home.example,10",
        "srv-host=_ldap._tcp,ldap.home.example,389,0,100",
        'txt-record=home.example,"v=spf1 -all","two, with a comma"',
        "ptr-record=10.0.168.192.in-addr.arpa,laptop.home.example",
        "local-ttl=60",
        "dhcp-range=192.168.0.50,192.168.0.150,12h",
        "dhcp-option=3,192.168.0.1",
        "bogus-nxdomain=64.94.110.11",
        "conf-dir=conf.d,*.conf",
        "conf-file=dnsmasq.conf",
        "addn-hosts=hosts.extra",
        'txt-record=broken,"unclosed',
      ].join("\n"),
    );
    await Deno.writeTextFile(
      join(dir, "conf.d", "10-more.conf"),
      "server=/corp.example/10.1.1.1\nnot a valid line at all = x\n",
    );
    await Deno.writeTextFile(join(dir, "conf.d", "skip.bak"), "server=9.9.9.9");
    await Deno.writeTextFile(
      join(dir, "hosts.extra"),
      "192.168.0.20 tv\n192.168.0.21 fridge.home.example # kitchen\nnot-an-ip x\n",
    );
    const r = await importDnsmasq(join(dir, "dnsmasq.conf"));
    allValid(r);

    // deno-lint-ignore no-explicit-any
    const up = r.settings.upstreams as any;
    assertEquals(up.groups.default, {
      servers: ["192.0.2.53", "192.0.2.54:5353"],
      strategy: "parallel_best",
    });
    assertEquals(up.conditional, { "corp.example.": "corp-example" });
    assert(!JSON.stringify(up).includes("9.9.9.9"), "skip.bak is filtered");

    const nas = find(r, "DNSZone", "nas-example");
    assertEquals(spec(nas), {
      zoneName: "nas.example.",
      type: "primary",
      defaultTTL: 60,
    });
    const nasRecords = spec(find(r, "DNSRecordSet", "nas-example")).endpoints;
    assertEquals(nasRecords, [
      { dnsName: "*.nas.example", recordType: "A", targets: ["10.0.0.5"] },
      { dnsName: "nas.example", recordType: "A", targets: ["10.0.0.5"] },
    ]);

    const home = spec(find(r, "DNSRecordSet", "home-example")).endpoints;
    const rec = (name: string, type: string) =>
      home.find((e: { dnsName: string; recordType: string }) =>
        e.dnsName === name && e.recordType === type
      );
    assertEquals(rec("laptop.home.example", "A").targets, ["192.168.0.10"]);
    assertEquals(rec("laptop.home.example", "A").recordTTL, 600);
    assertEquals(rec("laptop.home.example", "AAAA").targets, ["2001:db8::10"]);
    assertEquals(rec("printer.home.example", "CNAME").targets, [
      "laptop.home.example.",
    ]);
    assertEquals(rec("www.home.example", "CNAME").targets, [
      "laptop.home.example.",
    ]);
    assertEquals(rec("home.example", "MX").targets, ["10 mail.home.example."]);
    assertEquals(rec("_ldap._tcp.home.example", "SRV").targets, [
      "0 100 389 ldap.home.example.",
    ]);
    assertEquals(rec("home.example", "TXT").targets, [
      '"v=spf1 -all" "two, with a comma"',
    ]);
    assertEquals(rec("tv.home.example", "A").targets, ["192.168.0.20"]);
    assertEquals(rec("fridge.home.example", "A").targets, ["192.168.0.21"]);
    const ptr = find(r, "DNSRecordSet", "0-168-192-in-addr-arpa");
    assertEquals(spec(ptr).endpoints[0].targets, ["laptop.home.example."]);

    const nullList = find(r, "BlockList", "dnsmasq-address-null");
    assertEquals(spec(nullList).response, { mode: "zeroIP" });
    assertEquals(
      spec(nullList).sources[0].inline,
      "*.ads.example\n*.doubleclick.example\n",
    );
    const nx = find(r, "BlockList", "dnsmasq-address-nxdomain");
    assertEquals(spec(nx).sources[0].inline, "*.tracker.example\n");
    assertEquals(spec(find(r, "Policy", "dnsmasq-address")), {
      clientGroupRefs: ["default"],
      blockListRefs: ["dnsmasq-address-null", "dnsmasq-address-nxdomain"],
    });

    const why = (what: string) =>
      r.report.skipped.find((n) => n.what.startsWith(what));
    assert(/unqualified/.test(why("server=//192.0.2.1")!.detail));
    assert(/every name/.test(why("address=/#/")!.detail));
    assert(/CNAME/.test(why("cname=laptop,")!.detail));
    assert(why("cname=laptop,")!.where.endsWith("dnsmasq.conf:14"));
    assert(/already read/.test(why(join(dir, "dnsmasq.conf"))!.detail));
    assert(why("not a valid line")!.where.endsWith("10-more.conf:2"));
    assert(/not an IP address/.test(why("not-an-ip")!.detail));
    assert(/not closed/.test(why("txt-record=broken")!.detail));
    assertEquals(r.report.skipped.filter((n) => /DHCP/.test(n.what)).length, 1);
    assert(/^2 DHCP/.test(why("2 DHCP")!.what));
    assert(why("bogus-nxdomain")!.where.endsWith("dnsmasq.conf:22"));
    assert(
      r.report.mapped.some((n) =>
        n.what.startsWith("server=192.0.2.54") && /@eth0 dropped/.test(n.detail)
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a directory is read like conf-dir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dnsmasq-" });
  try {
    await Deno.writeTextFile(join(dir, "01-a.conf"), "server=192.0.2.1\n");
    await Deno.writeTextFile(join(dir, "02-b.conf"), "server=192.0.2.2\n");
    await Deno.writeTextFile(join(dir, "03-c.conf~"), "server=192.0.2.3\n");
    const r = await importDnsmasq(dir);
    // deno-lint-ignore no-explicit-any
    assertEquals((r.settings.upstreams as any).groups.default.servers, [
      "192.0.2.1",
      "192.0.2.2",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("not a dnsmasq config → ImportError", async () => {
  const yaml = new TextEncoder().encode("upstreams:\n  groups: {}\n");
  await assertRejects(
    () => importDnsmasq("kudurru.yaml", () => Promise.resolve(yaml)),
    ImportError,
    "not a dnsmasq configuration",
  );
  await assertRejects(
    () => importDnsmasq("/nonexistent/dnsmasq.conf"),
    ImportError,
    "cannot be read",
  );
  const binary = new Uint8Array([0xff, 0xfe, 0x00, 0x41]);
  await assertRejects(
    () => importDnsmasq("x.conf", () => Promise.resolve(binary)),
    ImportError,
    "not UTF-8",
  );
});
