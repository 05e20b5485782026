import assert from "node:assert/strict";
import type { RRSet } from "../dns/rrset.ts";
import { sectionText, zoneFromText } from "../testing/zone_text.ts";
import type { ZoneContent } from "./types.ts";
import { diffSize, diffZones, type ZoneDiff } from "./zone_diff.ts";

const ZONE = "example.org.";

function soa(serial: number): string {
  return `example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 3600 900 1209600 300`;
}

function zone(serial: number, lines: string[]): ZoneContent {
  return zoneFromText(ZONE, [soa(serial), ...lines]);
}

/** removed and added as presentation lines, in the diff's own order. */
function changes(diff: ZoneDiff): { removed: string[]; added: string[] } {
  const lines = (rrsets: RRSet[]) =>
    rrsets.flatMap((rrset) => sectionText([rrset]));
  return { removed: lines(diff.removed), added: lines(diff.added) };
}

const BASE = [
  "example.org. 300 IN NS ns1.example.org.",
  "ns1.example.org. 300 IN A 192.0.2.1",
  "www.example.org. 300 IN A 192.0.2.10",
  "www.example.org. 300 IN A 192.0.2.11",
  "mail.example.org. 300 IN MX 10 mx.example.org.",
  'txt.example.org. 300 IN TXT "Hello"',
];

Deno.test("diffZones gives the records that changed inside an RRset", () => {
  const diff = diffZones(
    zone(1, BASE),
    zone(2, [
      ...BASE.filter((line) => !line.includes("192.0.2.11")),
      "www.example.org. 300 IN A 192.0.2.12",
    ]),
  );
  assert.equal(diff.fromSerial, 1);
  assert.equal(diff.toSerial, 2);
  assert.deepEqual(changes(diff), {
    removed: ["www.example.org. 300 IN A 192.0.2.11"],
    added: ["www.example.org. 300 IN A 192.0.2.12"],
  });
  assert.equal(
    diff.fromSoa.rdata[0]!.type === "SOA" && diff.fromSoa.rdata[0]!.serial,
    1,
  );
  assert.equal(
    diff.toSoa.rdata[0]!.type === "SOA" && diff.toSoa.rdata[0]!.serial,
    2,
  );
});

Deno.test("diffZones: an SOA-only change has nothing removed or added", () => {
  const diff = diffZones(zone(7, BASE), zone(8, BASE));
  assert.deepEqual(changes(diff), { removed: [], added: [] });
  assert.deepEqual([diff.fromSerial, diff.toSerial], [7, 8]);
});

Deno.test("diffZones: other SOA fields changing show in fromSoa/toSoa only", () => {
  const after = zoneFromText(ZONE, [
    "example.org. 300 IN SOA ns1.example.org. admin.example.org. 2 7200 900 1209600 300",
    ...BASE,
  ]);
  const diff = diffZones(zone(1, BASE), after);
  assert.deepEqual(changes(diff), { removed: [], added: [] });
  assert.deepEqual(sectionText([diff.toSoa]), [
    "example.org. 300 IN SOA ns1.example.org. admin.example.org. 2 7200 900 1209600 300",
  ]);
});

Deno.test("diffZones: a TTL change removes every old record and adds every new one", () => {
  const diff = diffZones(
    zone(1, BASE),
    zone(
      2,
      BASE.map((line) =>
        line.replace("www.example.org. 300", "www.example.org. 600")
      ),
    ),
  );
  assert.deepEqual(changes(diff), {
    removed: [
      "www.example.org. 300 IN A 192.0.2.10",
      "www.example.org. 300 IN A 192.0.2.11",
    ],
    added: [
      "www.example.org. 600 IN A 192.0.2.10",
      "www.example.org. 600 IN A 192.0.2.11",
    ],
  });
});

Deno.test("diffZones compares names in data without case where RFC 4034 §6.2 says so", () => {
  const before = zone(1, [
    ...BASE,
    "svc.example.org. 300 IN HTTPS 1 Svc.example.org. alpn=h2",
    "_s._tcp.example.org. 300 IN SRV 1 1 80 Target.example.org.",
  ]);
  const after = zone(2, [
    ...BASE.map((line) =>
      line.replace("mx.example.org.", "MX.Example.ORG.").replace(
        "Hello",
        "hello",
      )
    ),
    "svc.example.org. 300 IN HTTPS 1 svc.example.org. alpn=h2",
    "_s._tcp.example.org. 300 IN SRV 1 1 80 target.example.org.",
  ]);
  // What Knot 3.2.6 sends for the same two zone files.
  assert.deepEqual(changes(diffZones(before, after)), {
    removed: [
      'svc.example.org. 300 IN HTTPS 1 Svc.example.org. alpn="h2"',
      'txt.example.org. 300 IN TXT "Hello"',
    ],
    added: [
      'svc.example.org. 300 IN HTTPS 1 svc.example.org. alpn="h2"',
      'txt.example.org. 300 IN TXT "hello"',
    ],
  });
});

Deno.test("diffZones matches owners without case", () => {
  const before = zone(1, BASE);
  const after = zone(2, BASE);
  after.rrsets = after.rrsets.map((rrset) => ({
    ...rrset,
    name: rrset.name.toUpperCase(),
  }));
  assert.deepEqual(changes(diffZones(before, after)), {
    removed: [],
    added: [],
  });
});

Deno.test("diffZones: order and duplicates inside an RRset are no change", () => {
  const before = zone(1, BASE);
  const after = zone(2, BASE);
  const www = after.rrsets.find((r) => r.name === "www.example.org.")!;
  www.rdata = [www.rdata[1]!, www.rdata[0]!, www.rdata[1]!];
  assert.deepEqual(changes(diffZones(before, after)), {
    removed: [],
    added: [],
  });
});

Deno.test("diffZones gives whole RRsets that came and went, in canonical order", () => {
  const diff = diffZones(
    zone(1, BASE),
    zone(2, [
      ...BASE.filter((line) =>
        !line.startsWith("mail.") && !line.startsWith("txt.")
      ),
      "z.example.org. 300 IN AAAA 2001:db8::1",
      "a.example.org. 300 IN A 192.0.2.20",
      "b.a.example.org. 300 IN A 192.0.2.21",
      'a.example.org. 300 IN TXT "a"',
    ]),
  );
  assert.deepEqual(changes(diff), {
    removed: [
      "mail.example.org. 300 IN MX 10 mx.example.org.",
      'txt.example.org. 300 IN TXT "Hello"',
    ],
    added: [
      "a.example.org. 300 IN A 192.0.2.20",
      'a.example.org. 300 IN TXT "a"',
      "b.a.example.org. 300 IN A 192.0.2.21",
      "z.example.org. 300 IN AAAA 2001:db8::1",
    ],
  });
});

Deno.test("diffZones pairs RRsets of lists out of canonical order too", () => {
  const before = zone(1, BASE);
  const after = zone(2, [
    ...BASE.filter((line) => !line.startsWith("txt.")),
    "a.example.org. 300 IN A 192.0.2.20",
  ]);
  before.rrsets.reverse();
  after.rrsets.push(after.rrsets.shift()!);
  assert.deepEqual(changes(diffZones(before, after)), {
    removed: ['txt.example.org. 300 IN TXT "Hello"'],
    added: ["a.example.org. 300 IN A 192.0.2.20"],
  });
});

Deno.test("diffZones takes a whole zone that came at once", () => {
  // More RRsets than one call takes as arguments.
  const n = 200_000;
  const empty = bigZone(1, 0, () => {});
  const full = bigZone(2, n, () => {});
  assert.equal(diffZones(empty, full).added.length, n);
  assert.equal(diffZones(full, empty).removed.length, n);
});

Deno.test("diffZones refuses zones without an apex SOA, or two zones", () => {
  const noSoa: ZoneContent = {
    ...zone(1, BASE),
    rrsets: zoneFromText(ZONE, BASE).rrsets,
  };
  assert.throws(() => diffZones(noSoa, zone(2, BASE)), TypeError);
  const other = zoneFromText("example.net.", [
    soa(2).replaceAll("example.org", "example.net"),
  ]);
  assert.throws(() => diffZones(zone(1, BASE), other), TypeError);
});

Deno.test("diffSize counts each record with its names whole, both SOAs included", () => {
  const diff = diffZones(
    zone(1, BASE),
    zone(2, [...BASE, "new.example.org. 300 IN A 192.0.2.30"]),
  );
  // SOA: owner 13, fixed 10, data 17 + 24 + 20; the A: owner 17, fixed 10, data 4.
  assert.equal(diffSize(diff), 2 * (13 + 10 + 61) + (17 + 10 + 4));
  assert.equal(diffSize(diff, { limit: 100 }), 2 * (13 + 10 + 61));
});

/** A zone of `n` A records, each RRset its own object, as a rebuild makes them. */
function bigZone(
  serial: number,
  n: number,
  edit: (rrsets: RRSet[]) => void,
): ZoneContent {
  const rrsets: RRSet[] = [{
    name: ZONE,
    type: 6,
    ttl: 300,
    rdata: [{
      type: "SOA",
      mname: "ns1.example.org.",
      rname: "hostmaster.example.org.",
      serial,
      refresh: 3600,
      retry: 900,
      expire: 1209600,
      minimum: 300,
    }],
  }];
  for (let i = 0; i < n; i++) {
    rrsets.push({
      name: `h${i}.example.org.`,
      type: 1,
      ttl: 300,
      rdata: [{
        type: "A",
        address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      }],
    });
  }
  edit(rrsets);
  return { name: ZONE, objectName: "example-org", serial, rrsets };
}

Deno.test("diffZones finds the few changes in a zone of 200,000 records", () => {
  const n = 200_000;
  const before = bigZone(1, n, () => {});
  const after = bigZone(2, n, (rrsets) => {
    rrsets[1000]!.rdata = [{ type: "A", address: "192.0.2.1" }];
    rrsets.splice(150_000, 1);
    rrsets.push({
      name: "new.example.org.",
      type: 1,
      ttl: 60,
      rdata: [{ type: "A", address: "192.0.2.2" }],
    });
  });
  assert.deepEqual(changes(diffZones(before, after)), {
    removed: [
      "h149999.example.org. 300 IN A 10.2.73.239",
      "h999.example.org. 300 IN A 10.0.3.231",
    ],
    added: [
      "h999.example.org. 300 IN A 192.0.2.1",
      "new.example.org. 60 IN A 192.0.2.2",
    ],
  });
});
