import assert from "node:assert/strict";
import { buildZoneIndex, findZone, indexZone, nameSuffixes } from "./index.ts";
import { zoneFromText } from "../testing/zone_text.ts";

const ZONE = zoneFromText("example.org.", [
  "example.org. 60 IN SOA ns1.example.org. h.example.org. 1 3600 900 1209600 30",
  "example.org. 60 IN NS ns1.example.org.",
  "a.b.c.example.org. 60 IN A 192.0.2.1",
  "sub.example.org. 60 IN NS ns.sub.example.org.",
  "*.w.example.org. 60 IN A 192.0.2.2",
]);

Deno.test("nameSuffixes lists a name and its ancestors, longest first", () => {
  assert.deepEqual(nameSuffixes("a\\.b.example.org."), [
    "a\\.b.example.org.",
    "example.org.",
    "org.",
    ".",
  ]);
  assert.deepEqual(nameSuffixes("."), ["."]);
});

Deno.test("indexZone marks empty non-terminals and zone cuts", async (t) => {
  const zone = indexZone(ZONE);
  await t.step("ancestors of data exist without RRsets", () => {
    assert.deepEqual(zone.nodes.get("b.c.example.org.")?.rrsets, []);
    assert.deepEqual(zone.nodes.get("c.example.org.")?.rrsets, []);
    assert.deepEqual(zone.nodes.get("w.example.org.")?.rrsets, []);
  });
  await t.step("NS below the apex is a cut, NS at the apex is not", () => {
    assert.equal(zone.nodes.get("sub.example.org.")?.cut, true);
    assert.equal(zone.apex.cut, false);
  });
  await t.step("the negative SOA TTL is min(TTL, minimum)", () => {
    assert.equal(zone.negativeSoa?.ttl, 30);
    assert.equal(zone.soa?.ttl, 60);
  });
});

Deno.test("buildZoneIndex prefers the longest suffix and primaries over forwards of one name", () => {
  const index = buildZoneIndex([ZONE], [
    { name: "example.org.", objectName: "f", upstreamGroup: "g" },
    { name: "org.", objectName: "org", upstreamGroup: "g" },
  ]);
  assert.equal(
    findZone(index, nameSuffixes("www.example.org."))?.kind,
    "primary",
  );
  assert.equal(findZone(index, nameSuffixes("example.net.")), undefined);
  assert.equal(findZone(index, nameSuffixes("x.org."))?.name, "org.");
});

Deno.test("buildZoneIndex indexes 20000 names in well under a second", () => {
  const lines = [
    "big. 60 IN SOA ns.big. h.big. 1 3600 900 1209600 30",
  ];
  for (let i = 0; i < 20000; i++) {
    lines.push(`h${i}.r${i % 100}.big. 60 IN A 192.0.2.${i % 250}`);
  }
  const content = zoneFromText("big.", lines);
  const started = performance.now();
  const index = buildZoneIndex([content], []);
  const elapsed = performance.now() - started;
  const zone = index.zones.get("big.");
  assert.equal(zone?.kind === "primary" && zone.nodes.size, 20000 + 100 + 1);
  assert.ok(elapsed < 500, `indexing took ${elapsed.toFixed(1)} ms`);
});

Deno.test("buildZoneIndex indexes a zone's content once, whatever else changes", () => {
  const first = buildZoneIndex([ZONE], []);
  const other = zoneFromText("example.net.", [
    "example.net. 60 IN SOA ns1.example.net. h.example.net. 1 3600 900 1209600 30",
  ]);
  const second = buildZoneIndex([ZONE, other], []);
  assert.equal(
    second.zones.get("example.org."),
    first.zones.get("example.org."),
  );
  // A content with the same records but another object is indexed anew.
  const copy = structuredClone(ZONE);
  assert.notEqual(
    buildZoneIndex([copy], []).zones.get("example.org."),
    first.zones.get("example.org."),
  );
});

Deno.test("buildZoneIndex links child zones into a parent without changing the parent's own index", () => {
  const child = zoneFromText("x.y.example.org.", [
    "x.y.example.org. 60 IN SOA ns1.example.org. h.example.org. 1 3600 900 1209600 30",
  ]);
  const withChild = buildZoneIndex([ZONE, child], [
    { name: "f.example.org.", objectName: "f", upstreamGroup: "g" },
  ]);
  const linked = withChild.zones.get("example.org.");
  assert.ok(linked?.kind === "primary");
  // The names down to the child apex exist in the parent (RFC 8020).
  assert.ok(linked.nodes.has("y.example.org."));
  assert.ok(linked.nodes.has("x.y.example.org."));
  assert.ok(linked.nodes.has("f.example.org."));
  // The next snapshot without the children: NXDOMAIN for them again.
  const without = buildZoneIndex([ZONE], []);
  const parent = without.zones.get("example.org.");
  assert.ok(parent?.kind === "primary");
  assert.equal(parent.nodes.has("y.example.org."), false);
  assert.equal(parent.nodes.has("f.example.org."), false);
  assert.equal(parent.nodes.size, indexZone(ZONE).nodes.size);
});
