import assert from "node:assert/strict";
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import { buildZoneContent } from "./content.ts";
import { ep, NOW, recordSet, zone } from "./testdata/zone_objects.ts";
import { sectionText } from "../testing/zone_text.ts";

function build(sets: DNSRecordSet[]) {
  return buildZoneContent(zone(), sets, NOW);
}

function linesAt(
  built: ReturnType<typeof buildZoneContent>,
  owner: string,
): string[] {
  return built.content.rrsets
    .filter((rrset) => rrset.name === owner)
    .flatMap((rrset) => sectionText([rrset]));
}

Deno.test("buildZoneContent serves an RRset whose endpoints differ in TTL with the lowest and warns the others", async (t) => {
  await t.step("the higher TTL first", () => {
    const built = build([recordSet("web", [
      ep("ttl.example.org", "A", ["192.0.2.5"], { recordTTL: 200 }),
      ep("ttl.example.org", "A", ["192.0.2.6"], { recordTTL: 100 }),
    ])]);
    assert.deepEqual(linesAt(built, "ttl.example.org."), [
      "ttl.example.org. 100 IN A 192.0.2.5",
      "ttl.example.org. 100 IN A 192.0.2.6",
    ]);
    assert.deepEqual(built.problems, []);
    assert.deepEqual(built.warnings, [{
      recordSet: { namespace: "apps", name: "web" },
      reason: "TTLMismatch",
      endpoint: 0,
      message:
        "ttl.example.org. A: TTL 200 differs from TTL 100 at endpoints[1]; the records of an RRset share one TTL, so all are served with the lowest, 100 (RFC 2181 §5.2)",
    }]);
  });
  await t.step("the lower TTL first, the zone's defaultTTL last", () => {
    const built = build([recordSet("web", [
      ep("ttl.example.org", "TXT", ["a"], { recordTTL: 60 }),
      ep("ttl.example.org", "TXT", ["b"], { recordTTL: 60 }),
      ep("ttl.example.org", "TXT", ["c"]),
    ])]);
    assert.deepEqual(linesAt(built, "ttl.example.org."), [
      'ttl.example.org. 60 IN TXT "a"',
      'ttl.example.org. 60 IN TXT "b"',
      'ttl.example.org. 60 IN TXT "c"',
    ]);
    assert.deepEqual(
      built.warnings.map((w) => [w.endpoint, w.reason]),
      [[2, "TTLMismatch"]],
    );
    assert.match(built.warnings[0]!.message, /TTL 300 differs from TTL 60/);
  });
  await t.step("a repeated record with another TTL counts too", () => {
    const built = build([recordSet("web", [
      ep("ttl.example.org", "A", ["192.0.2.5"], { recordTTL: 600 }),
      ep("ttl.example.org", "A", ["192.0.2.5"], { recordTTL: 30 }),
    ])]);
    assert.deepEqual(linesAt(built, "ttl.example.org."), [
      "ttl.example.org. 30 IN A 192.0.2.5",
    ]);
    assert.deepEqual(built.warnings.map((w) => w.endpoint), [0]);
  });
  await t.step("equal TTLs give no warning", () => {
    const built = build([recordSet("web", [
      ep("ttl.example.org", "A", ["192.0.2.5"], { recordTTL: 300 }),
      ep("ttl.example.org", "A", ["192.0.2.6"]),
      ep("other.example.org", "A", ["192.0.2.7"], { recordTTL: 60 }),
    ])]);
    assert.deepEqual(built.warnings, []);
  });
});

interface OcclusionCase {
  name: string;
  sets: DNSRecordSet[];
  /** "set endpoints[i] owner TYPE" for each Occluded problem. */
  occluded: string[];
  /** A pattern the first problem's message matches. */
  message?: RegExp;
}

const OCCLUSION_CASES: OcclusionCase[] = [
  {
    name: "data below a DNAME",
    sets: [recordSet("a", [
      ep("docc.example.org", "DNAME", ["other.example"]),
      ep("x.docc.example.org", "A", ["192.0.2.99"]),
      ep("*.docc.example.org", "TXT", ["w"]),
      ep("docc.example.org", "A", ["192.0.2.98"]),
    ])],
    occluded: [
      "a endpoints[1] x.docc.example.org. A",
      "a endpoints[2] *.docc.example.org. TXT",
    ],
    message:
      /^x\.docc\.example\.org\. A is below the DNAME at docc\.example\.org\. \(DNSRecordSet apps\/a\) and is never answered: queries for it follow the DNAME \(RFC 6672 §2\.3\)$/,
  },
  {
    name: "data of another record set below a DNAME, two levels down",
    sets: [
      recordSet("a", [ep("docc.example.org", "DNAME", ["other.example"])]),
      recordSet("b", [ep("y.x.docc.example.org", "AAAA", ["2001:db8::9"])]),
    ],
    occluded: ["b endpoints[0] y.x.docc.example.org. AAAA"],
  },
  {
    name: "a DNAME below a DNAME, and its data, name the upper one",
    sets: [recordSet("a", [
      ep("docc.example.org", "DNAME", ["other.example"]),
      ep("in.docc.example.org", "DNAME", ["third.example"]),
      ep("x.in.docc.example.org", "A", ["192.0.2.97"]),
    ])],
    occluded: [
      "a endpoints[1] in.docc.example.org. DNAME",
      "a endpoints[2] x.in.docc.example.org. A",
    ],
    message: /below the DNAME at docc\.example\.org\./,
  },
  {
    name: "a DNAME beside an NS below the apex",
    sets: [recordSet("a", [
      ep("dnns.example.org", "NS", ["ns1.example.org"]),
      ep("dnns.example.org", "DNAME", ["other.example"]),
      ep("ns.dnns.example.org", "A", ["192.0.2.53"]),
    ])],
    occluded: ["a endpoints[1] dnns.example.org. DNAME"],
    message:
      /^dnns\.example\.org\. DNAME is beside the NS \(DNSRecordSet apps\/a\) and is never answered: below the apex an NS makes dnns\.example\.org\. a zone cut/,
  },
  {
    name: "a DNAME at the apex: data below it, not the apex NS",
    sets: [recordSet("a", [
      ep("example.org", "DNAME", ["other.example"]),
      ep("www.example.org", "A", ["192.0.2.80"]),
    ])],
    occluded: ["a endpoints[1] www.example.org. A"],
  },
  {
    name: "below a zone cut a DNAME is the child's business",
    sets: [recordSet("a", [
      ep("sub.example.org", "NS", ["ns.sub.example.org"]),
      ep("ns.sub.example.org", "A", ["192.0.2.53"]),
      ep("x.sub.example.org", "DNAME", ["other.example"]),
      ep("y.x.sub.example.org", "A", ["192.0.2.54"]),
      ep("docc.example.org", "DNAME", ["other.example"]),
      ep("x.docc.example.org", "A", ["192.0.2.99"]),
    ])],
    occluded: ["a endpoints[5] x.docc.example.org. A"],
  },
];

Deno.test("buildZoneContent reports data no query reaches past a DNAME as Occluded and keeps serving it", async (t) => {
  for (const c of OCCLUSION_CASES) {
    await t.step(c.name, () => {
      const built = build(c.sets);
      assert.deepEqual(
        built.problems.map((p) => {
          const [owner, type] = p.message.split(" ");
          return `${p.recordSet.name} endpoints[${p.endpoint}] ${owner} ${type}`;
        }),
        c.occluded,
      );
      assert.ok(built.problems.every((p) => p.reason === "Occluded"));
      if (c.message !== undefined) {
        assert.match(built.problems[0]!.message, c.message);
      }
      const endpoints = c.sets.flatMap((rs) => rs.spec!.endpoints);
      const records = endpoints.reduce((n, e) => n + e.targets.length, 0);
      assert.equal(built.recordCount, records, "occluded data stays served");
    });
  }
});
