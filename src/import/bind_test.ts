/**
 * importBind over the real named.conf files of PowerDNS's regression tests
 * and BIND's system tests (read in place), and over a small config written
 * here for what those files do not show together (acl, key-signed
 * transfers, also-notify, options forwarders, include, syntax errors).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { importBind } from "./bind.ts";
import { ImportError, type ImportResult } from "./import_result.ts";

const DATA = "../../../shared/data/imports/bind/";
const real = (path: string) =>
  fileURLToPath(new URL(DATA + path, import.meta.url));

function byName(result: ImportResult, kind: string, name: string): KObject {
  const o = result.objects.find((o) =>
    o.kind === kind && o.metadata.name === name
  );
  assert.ok(o, `${kind} ${name} is among the objects`);
  return o;
}

function assertValid(result: ImportResult): void {
  for (const o of result.objects) {
    const v = validateObject(o);
    assert.ok(v.ok, `${o.kind} ${o.metadata.name}: ${JSON.stringify(v)}`);
  }
}

function skippedNote(result: ImportResult, where: string, what: RegExp) {
  const note = result.report.skipped.find((n) =>
    n.where === where && what.test(n.what)
  );
  assert.ok(note, `a skipped note at ${where} for ${what}`);
  return note;
}

Deno.test("importBind: PowerDNS named.conf, two zone files present", async () => {
  const r = await importBind(real("pdns/named.conf"));
  assertValid(r);
  assert.deepEqual(
    r.objects.map((o) => `${o.kind}/${o.metadata.name}`),
    [
      "DNSZone/test-com",
      "DNSRecordSet/test-com-bind",
      "DNSZone/dnssec-parent-com",
      "DNSRecordSet/dnssec-parent-com-bind",
    ],
  );
  // deno-lint-ignore no-explicit-any -- reading the spec fields the test checks
  const zone = byName(r, "DNSZone", "test-com").spec as any;
  assert.equal(zone.zoneName, "test.com.");
  assert.equal(zone.type, "primary");
  assert.deepEqual(zone.soa, {
    mname: "ns1.test.com.",
    rname: "ahu.example.com.",
    refresh: 28800,
    retry: 7200,
    expire: 604800,
    minimum: 86400,
  });
  assert.deepEqual(zone.nameservers, ["ns1.test.com.", "ns2.test.com."]);
  // deno-lint-ignore no-explicit-any -- as above
  const set = byName(r, "DNSRecordSet", "test-com-bind") as any;
  assert.equal(set.metadata.namespace, "default");
  assert.equal(set.spec.zoneRef.name, "test-com");
  assert.equal(set.spec.endpoints.length, 32);
  const www = set.spec.endpoints.find((e: { dnsName: string }) =>
    e.dnsName === "www.test.com."
  );
  assert.deepEqual(www.targets, ["server1.test.com."]);
  assert.equal(www.recordType, "CNAME");
  // The relative delegation target is made absolute against the origin.
  const sub = set.spec.endpoints.find((e: { dnsName: string }) =>
    e.dnsName === "sub.test.test.com."
  );
  assert.deepEqual(sub.targets, ["ns-test.example.net.test.com."]);
  // 17 zones: 2 imported, 15 files missing and reported.
  const missing = r.report.skipped.filter((n) =>
    n.detail.startsWith("missing file")
  );
  assert.equal(missing.length, 15);
  skippedNote(r, "named.conf:10", /^zone example\.com \(primary\)$/);
  // The 279-octet TXT string is reported with its line, not fatal.
  const txt = skippedNote(r, "zones/test.com:36", /very-long-txt/);
  assert.match(txt.detail, /279 octets; the limit is 255/);
  skippedNote(r, "zones/dnssec-parent.com:19", /DS/);
  skippedNote(r, "named.conf:4", /listen-on port 5300/);
  assert.deepEqual(r.settings, {});
});

Deno.test("importBind: BIND xfer/ns2: keys, hint, secondaries, @PORT@", async () => {
  const r = await importBind(real("isc/xfer-ns2/named.conf.in"));
  assertValid(r);
  assert.deepEqual(r.objects.map((o) => o.metadata.name), [
    "secondary",
    "mapped",
    "dot-fallback",
  ]);
  // deno-lint-ignore no-explicit-any -- reading the spec fields the test checks
  const dot = byName(r, "DNSZone", "dot-fallback").spec as any;
  assert.equal(dot.type, "secondary");
  // The `tls ephemeral` primary is left out, the plain one kept.
  assert.deepEqual(dot.secondary.primaries, ["10.53.0.1"]);
  skippedNote(r, "named.conf.in:80", /10\.53\.0\.1 tls ephemeral/);
  assert.ok(
    r.report.mapped.some((n) =>
      n.what.startsWith("@PORT@") && n.detail === "read as 53"
    ),
  );
  const key = skippedNote(
    r,
    "named.conf.in:38",
    /^key "tsigzone\." \(hmac-md5\)$/,
  );
  assert.match(key.detail, /<dataDir>\/keys\/tsig\/tsigzone\.key/);
  assert.match(key.detail, /kudurru tsig generate tsigzone/);
  const rndc = skippedNote(r, "named.conf.in:29", /^key "rndc_key"/);
  assert.match(rndc.detail, /keys\/tsig\/rndc-key\.key/);
  for (const n of [...r.report.mapped, ...r.report.skipped]) {
    assert.ok(
      !JSON.stringify(n).includes("1234abcd8765"),
      "no secret in the report",
    );
  }
  skippedNote(r, "named.conf.in:47", /^zone \. \(hint\)$/);
  skippedNote(r, "named.conf.in:34", /^controls$/);
});

Deno.test("importBind: BIND notify/ns5: views beyond the first are reported", async () => {
  const r = await importBind(real("isc/notify-ns5/named.conf.in"));
  assertValid(r);
  // The first view's only zone has no file here.
  assert.deepEqual(r.objects, []);
  assert.match(
    skippedNote(r, "named.conf.in:44", /^zone x21 \(primary\)$/).detail,
    /^missing file/,
  );
  skippedNote(r, "named.conf.in:54", /^view b: zone x21$/);
  skippedNote(r, "named.conf.in:64", /^view c: zone x21$/);
  assert.equal(
    r.report.skipped.filter((n) => /^key "[abc]" \(hmac-md5\)$/.test(n.what))
      .length,
    3,
  );
});

Deno.test("importBind: BIND forward/ns4: forward zones and one upstream group", async () => {
  const r = await importBind(real("isc/forward-ns4/named.conf.in"));
  assertValid(r);
  assert.deepEqual(
    r.objects.map((o) => (o.spec as { zoneName: string }).zoneName),
    ["example1.", "example3.", "example5.", "1.0.10.in-addr.arpa.", "grafted."],
  );
  for (const o of r.objects) {
    assert.deepEqual(o.spec, {
      zoneName: (o.spec as { zoneName: string }).zoneName,
      type: "forward",
      forward: { upstreamGroup: "example1", dnssecValidation: false },
    });
  }
  assert.deepEqual(r.settings, {
    upstreams: { groups: { example1: { servers: ["10.53.0.2:53"] } } },
  });
  skippedNote(r, "named.conf.in:36", /forward first$/);
  skippedNote(r, "named.conf.in:40", /forward first \(BIND's default\)$/);
  assert.ok(
    !r.report.skipped.some((n) => /example5\.\): forward/.test(n.what)),
  );
  skippedNote(r, "named.conf.in:27", /^statistics-channels$/);
});

/** A file system of a few texts. */
function files(texts: Record<string, string>) {
  return (path: string): Promise<Uint8Array> => {
    const text = texts[path];
    if (text === undefined) {
      return Promise.reject(new Deno.errors.NotFound(`${path}: no such file`));
    }
    return Promise.resolve(new TextEncoder().encode(text));
  };
}

const CONF = `
# a named.conf written for this test
include "keys.conf";
acl internal { 10.0.0.0/8; !10.9.0.1; 192.168/16; };
options {
  directory "/srv/zones";
  forwarders { 192.0.2.53; 2001:db8::53 port 5353; };
  allow-query { any; };
};
/* the zone */
zone "Example.ORG" {
  type master;
  file "example.org.db";
  allow-transfer { internal; key xfr.example.org.; };
  also-notify { 192.0.2.7 port 5300; };
  allow-update { none; };
};
zone "corp.example" { type forward; forward only; forwarders { 10.1.1.1; }; };
zone "fallback.example" { type forward; };
zone "sec.example" { type slave; masters { 192.0.2.1 key "xfr.example.org."; }; };
`;

const ZONE = `$TTL 600
@ IN SOA ns1 hostmaster ( 2024010101 3600 900 1209600 30 )
  IN NS ns1
ns1 IN A 192.0.2.1
www 300 IN A 192.0.2.10
www IN A 192.0.2.11
$INCLUDE other.db
`;

Deno.test("importBind: acl, key-signed transfer, also-notify, options forwarders", async () => {
  const r = await importBind(
    "/etc/bind/named.conf",
    files({
      "/etc/bind/named.conf": CONF,
      "/etc/bind/keys.conf":
        'key "xfr.example.org." { algorithm hmac-sha256; secret "c2VjcmV0c2VjcmV0"; };',
      "/srv/zones/example.org.db": ZONE,
    }),
  );
  assertValid(r);
  // deno-lint-ignore no-explicit-any -- reading the spec fields the test checks
  const zone = byName(r, "DNSZone", "example-org").spec as any;
  assert.equal(zone.zoneName, "example.org.");
  assert.equal(zone.defaultTTL, 600);
  assert.equal(zone.soa.minimum, 30);
  assert.deepEqual(zone.policy, {
    zoneTransfer: "useNetworkACL",
    transferACL: ["10.0.0.0/8", "!10.9.0.1", "192.168.0.0/16"],
    transferTSIGKeyRefs: ["xfr.example.org"],
    notify: "both",
    notifyTargets: ["192.0.2.7:5300"],
  });
  // deno-lint-ignore no-explicit-any -- as above
  const set = byName(r, "DNSRecordSet", "example-org-bind").spec as any;
  assert.deepEqual(set.endpoints, [
    {
      dnsName: "ns1.example.org.",
      recordType: "A",
      targets: ["192.0.2.1"],
      recordTTL: 600,
    },
    {
      dnsName: "www.example.org.",
      recordType: "A",
      targets: ["192.0.2.10", "192.0.2.11"],
      recordTTL: 300,
    },
  ]);
  skippedNote(r, "/srv/zones/example.org.db:7", /\$INCLUDE/);
  // deno-lint-ignore no-explicit-any -- as above
  const corp = byName(r, "DNSZone", "corp-example").spec as any;
  assert.equal(corp.forward.upstreamGroup, "corp-example");
  // deno-lint-ignore no-explicit-any -- as above
  const fallback = byName(r, "DNSZone", "fallback-example").spec as any;
  assert.equal(fallback.forward.upstreamGroup, "default");
  assert.deepEqual(r.settings, {
    upstreams: {
      groups: {
        default: { servers: ["192.0.2.53:53", "[2001:db8::53]:5353"] },
        "corp-example": { servers: ["10.1.1.1:53"] },
      },
    },
  });
  // deno-lint-ignore no-explicit-any -- as above
  const sec = byName(r, "DNSZone", "sec-example").spec as any;
  assert.deepEqual(sec.secondary, {
    primaries: ["192.0.2.1"],
    tsigKeyRef: "xfr.example.org",
  });
  assert.ok(r.report.mapped.some((n) => n.what === 'include "keys.conf"'));
  const key = skippedNote(
    r,
    "keys.conf:1",
    /^key "xfr\.example\.org\." \(hmac-sha256\)$/,
  );
  assert.match(key.detail, /keys\/tsig\/xfr\.example\.org\.key/);
  assert.ok(!JSON.stringify(r.report).includes("c2VjcmV0"));
});

Deno.test("importBind: what is not a named.conf is an ImportError", async () => {
  const read = files({
    "/a/named.conf": 'zone "x" { type primary; file "x";\n',
    "/a/hosts": "127.0.0.1 localhost\n",
    "/a/zone": 'zone "x" { type primary; }; }',
  });
  await assert.rejects(
    importBind("/a/named.conf", read),
    (e: unknown) =>
      e instanceof ImportError &&
      /named\.conf:1: a \{ is never closed/.test(e.message),
  );
  await assert.rejects(importBind("/a/hosts", read), ImportError);
  await assert.rejects(importBind("/a/zone", read), /a \} that closes no \{/);
  await assert.rejects(importBind("/a/missing", read), ImportError);
});
