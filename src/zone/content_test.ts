import assert from "node:assert/strict";
import { buildZoneContent, forwardZoneOf, withSerial } from "./content.ts";
import { ep, NOW, recordSet, zone } from "./testdata/zone_objects.ts";
import { sectionText } from "../testing/zone_text.ts";

function lines(build: ReturnType<typeof buildZoneContent>): string[] {
  return build.content.rrsets.flatMap((rrset) => sectionText([rrset]));
}

Deno.test("buildZoneContent builds SOA defaults and apex NS from the zone object", () => {
  const build = buildZoneContent(zone(), [], NOW);
  assert.deepEqual(lines(build), [
    "example.org. 300 IN NS ns1.example.org.",
    "example.org. 300 IN NS ns2.example.org.",
    "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 900 1209600 300",
  ]);
  assert.equal(build.content.serial, 1);
  assert.equal(build.recordCount, 0);
});

Deno.test("buildZoneContent takes spec.soa, status.serial and a default mname", async (t) => {
  await t.step("spec.soa and status.serial", () => {
    const build = buildZoneContent(
      zone({
        soa: {
          mname: "a.example.net.",
          rname: "dns.example.net.",
          refresh: 7200,
          retry: 600,
          expire: 604800,
          minimum: 60,
        },
      }, 2030010101),
      [],
      NOW,
    );
    assert.ok(
      lines(build).includes(
        "example.org. 300 IN SOA a.example.net. dns.example.net. 2030010101 7200 600 604800 60",
      ),
    );
  });
  await t.step("no nameservers: mname is ns1.<zone>", () => {
    const build = buildZoneContent(zone({ nameservers: [] }), [], NOW);
    assert.deepEqual(lines(build), [
      "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 900 1209600 300",
    ]);
  });
});

Deno.test("buildZoneContent serves endpoints with TTL, lowercase owners and merged targets", () => {
  const build = buildZoneContent(zone({ defaultTTL: 120 }), [
    recordSet("web", [
      ep("WWW.Example.org", "A", ["192.0.2.1"]),
      ep("www.example.org.", "A", ["192.0.2.2", "192.0.2.1"]),
      ep("mail.example.org", "MX", ["10 mx.example.org"], { recordTTL: 60 }),
    ]),
  ], NOW);
  assert.deepEqual(lines(build).filter((l) => !/ (SOA|NS) /.test(l)), [
    "mail.example.org. 60 IN MX 10 mx.example.org.",
    "www.example.org. 120 IN A 192.0.2.1",
    "www.example.org. 120 IN A 192.0.2.2",
  ]);
  assert.equal(build.recordCount, 3);
  assert.deepEqual(build.problems, []);
});

Deno.test("buildZoneContent leaves out disabled and expired endpoints silently", () => {
  const build = buildZoneContent(zone(), [
    recordSet("web", [
      ep("off.example.org", "A", ["192.0.2.1"], {
        kudurru: { disabled: true },
      }),
      ep("old.example.org", "A", ["192.0.2.2"], {
        kudurru: { expiresAt: "2029-12-31T23:59:59Z" },
      }),
      ep("new.example.org", "A", ["192.0.2.3"], {
        kudurru: { expiresAt: "2030-01-01T00:00:01Z" },
      }),
    ]),
  ], NOW);
  assert.deepEqual(
    build.content.rrsets.map((r) => r.name).filter((n) => n !== "example.org."),
    ["new.example.org."],
  );
  assert.deepEqual(build.problems, []);
});

Deno.test("buildZoneContent reports names outside the zone", () => {
  const build = buildZoneContent(zone(), [
    recordSet("web", [
      ep("www.example.com", "A", ["192.0.2.1"]),
      ep("badexample.org", "A", ["192.0.2.1"]),
    ]),
  ], NOW);
  assert.deepEqual(build.problems.map((p) => [p.reason, p.endpoint]), [
    ["OutsideZone", 0],
    ["OutsideZone", 1],
  ]);
  assert.equal(build.recordCount, 0);
});

Deno.test("buildZoneContent marks the later of two record sets declaring one name and type Duplicated", () => {
  const build = buildZoneContent(zone(), [
    recordSet("late", [ep("www.example.org", "A", ["192.0.2.2"])], {
      created: "2029-06-01T00:00:00Z",
    }),
    recordSet("early", [ep("www.example.org", "A", ["192.0.2.1"])], {
      created: "2029-01-01T00:00:00Z",
      namespace: "zzz",
    }),
  ], NOW);
  assert.ok(lines(build).includes("www.example.org. 300 IN A 192.0.2.1"));
  assert.ok(!lines(build).includes("www.example.org. 300 IN A 192.0.2.2"));
  assert.deepEqual(build.problems.map((p) => [p.recordSet, p.reason]), [
    [{ namespace: "apps", name: "late" }, "Duplicated"],
  ]);
});

Deno.test("buildZoneContent breaks creation-time ties by namespace/name", () => {
  const build = buildZoneContent(zone(), [
    recordSet("b", [ep("x.example.org", "TXT", ["b"])]),
    recordSet("a", [ep("x.example.org", "TXT", ["a"])]),
  ], NOW);
  assert.deepEqual(build.problems.map((p) => p.recordSet.name), ["b"]);
});

Deno.test("buildZoneContent marks apex NS endpoints Duplicated when spec.nameservers is set", () => {
  const build = buildZoneContent(zone(), [
    recordSet("ns", [ep("example.org", "NS", ["ns3.example.org"])]),
  ], NOW);
  assert.deepEqual(build.problems.map((p) => p.reason), ["Duplicated"]);
});

Deno.test("buildZoneContent reports CNAME conflicts on the later declaration", async (t) => {
  await t.step("across record sets", () => {
    const build = buildZoneContent(zone(), [
      recordSet("a", [ep("www.example.org", "A", ["192.0.2.1"])]),
      recordSet("b", [ep("www.example.org", "CNAME", ["web.example.net"])]),
    ], NOW);
    assert.deepEqual(build.problems.map((p) => [p.recordSet.name, p.reason]), [
      ["b", "CNAMEConflict"],
    ]);
  });
  await t.step("inside one record set the first endpoint stays", () => {
    const build = buildZoneContent(zone(), [
      recordSet("a", [
        ep("www.example.org", "CNAME", ["web.example.net"]),
        ep("www.example.org", "TXT", ["x"]),
        ep("www.example.org", "CNAME", ["other.example.net"]),
      ]),
    ], NOW);
    assert.deepEqual(build.problems.map((p) => [p.endpoint, p.reason]), [
      [1, "CNAMEConflict"],
      [2, "CNAMEConflict"],
    ]);
    assert.ok(
      lines(build).includes(
        "www.example.org. 300 IN CNAME web.example.net.",
      ),
    );
  });
  await t.step("a CNAME at the apex conflicts with SOA and NS", () => {
    const build = buildZoneContent(zone(), [
      recordSet("a", [ep("example.org", "CNAME", ["web.example.net"])]),
    ], NOW);
    assert.deepEqual(build.problems.map((p) => p.reason), ["CNAMEConflict"]);
  });
});

Deno.test("buildZoneContent takes only record sets of this zone and its selector", () => {
  const build = buildZoneContent(
    zone({ recordSetSelector: { namespaces: ["apps"] } }),
    [
      recordSet("mine", [ep("a.example.org", "A", ["192.0.2.1"])]),
      recordSet("other-zone", [ep("b.example.org", "A", ["192.0.2.2"])], {
        zoneRef: "other",
      }),
      recordSet("other-ns", [ep("c.example.org", "A", ["192.0.2.3"])], {
        namespace: "team",
      }),
    ],
    NOW,
  );
  assert.deepEqual(
    build.content.rrsets.map((r) => r.name).filter((n) => n !== "example.org."),
    ["a.example.org."],
  );
});

Deno.test("buildZoneContent sorts RRsets in canonical order then by type", () => {
  const build = buildZoneContent(zone(), [
    recordSet("x", [
      ep("z.example.org", "A", ["192.0.2.1"]),
      ep("a.b.example.org", "TXT", ["t"]),
      ep("b.example.org", "AAAA", ["2001:db8::1"]),
      ep("b.example.org", "A", ["192.0.2.2"]),
      ep("*.example.org", "A", ["192.0.2.3"]),
    ]),
  ], NOW);
  assert.deepEqual(
    build.content.rrsets.map((r) => `${r.name}/${r.type}`),
    [
      "example.org./2",
      "example.org./6",
      "*.example.org./1",
      "b.example.org./1",
      "b.example.org./28",
      "a.b.example.org./16",
      "z.example.org./1",
    ],
  );
});

Deno.test("buildZoneContent hash ignores declaration order and the serial", async (t) => {
  const endpoints = [
    ep("www.example.org", "A", ["192.0.2.1", "192.0.2.2"]),
    ep("mail.example.org", "MX", ["10 mx.example.org"]),
  ];
  const base = buildZoneContent(zone(), [recordSet("a", endpoints)], NOW);
  await t.step("same content in another order", () => {
    const reordered = buildZoneContent(zone(), [
      recordSet("a", [
        endpoints[1]!,
        ep("www.example.org", "A", ["192.0.2.2", "192.0.2.1"]),
      ]),
    ], NOW);
    assert.equal(reordered.contentHash, base.contentHash);
  });
  await t.step("another serial", () => {
    const stamped = buildZoneContent(
      zone({}, 2030010199),
      [recordSet("a", endpoints)],
      NOW,
    );
    assert.equal(stamped.contentHash, base.contentHash);
  });
  await t.step("changed content", () => {
    const changed = buildZoneContent(zone(), [
      recordSet("a", [ep("www.example.org", "A", ["192.0.2.9"])]),
    ], NOW);
    assert.notEqual(changed.contentHash, base.contentHash);
    assert.match(base.contentHash, /^[0-9a-f]{64}$/);
  });
});

Deno.test("buildZoneContent refuses a forward zone", () => {
  assert.throws(
    () => buildZoneContent(zone({ type: "forward" }), [], NOW),
    TypeError,
  );
});

Deno.test("forwardZoneOf describes forward zones only", () => {
  assert.deepEqual(
    forwardZoneOf(zone({
      zoneName: "Corp.",
      type: "forward",
      forward: { upstreamGroup: "corp", dnssecValidation: false },
    })),
    {
      name: "corp.",
      objectName: "example-org",
      upstreamGroup: "corp",
      access: { queryAccess: "allow", zoneTransfer: "deny" },
    },
  );
  assert.equal(forwardZoneOf(zone()), undefined);
});

Deno.test("buildZoneContent carries the zone's access policy, with the schema's defaults", () => {
  assert.deepEqual(buildZoneContent(zone(), [], NOW).content.access, {
    queryAccess: "allow",
    zoneTransfer: "deny",
  });
  const policy = {
    queryAccess: "useNetworkACL" as const,
    queryACL: ["10.0.0.0/8"],
    zoneTransfer: "allowOnlyZoneNameServers" as const,
    transferTSIGKeyRefs: ["xfr"],
    notify: "none" as const,
    update: "deny" as const,
  };
  assert.deepEqual(
    buildZoneContent(zone({ policy }), [], NOW).content.access,
    {
      queryAccess: "useNetworkACL",
      queryACL: ["10.0.0.0/8"],
      zoneTransfer: "allowOnlyZoneNameServers",
      transferTSIGKeyRefs: ["xfr"],
    },
  );
});

Deno.test("buildZoneContent writes owners as the wire reads them: one spelling per name", () => {
  const build = buildZoneContent(zone(), [
    recordSet("spellings", [
      ep("\\*.esc.example.org", "A", ["192.0.2.7"]),
      ep("\\065bc.example.org", "A", ["192.0.2.8"]),
      ep("a.\\*.mid.example.org", "TXT", ['"star"']),
    ]),
  ], NOW);
  assert.deepEqual(lines(build).filter((l) => !/ (SOA|NS) /.test(l)), [
    "abc.example.org. 300 IN A 192.0.2.8",
    "*.esc.example.org. 300 IN A 192.0.2.7",
    'a.\\*.mid.example.org. 300 IN TXT "star"',
  ]);
});

Deno.test("buildZoneContent keeps TXT and CAA records that differ only in case, and drops names that do", () => {
  const build = buildZoneContent(zone(), [
    recordSet("mixed", [
      ep("txt.example.org", "TXT", ['"abc"', '"ABC"']),
      ep("caa.example.org", "CAA", [
        '0 issue "ca.example"',
        '0 issue "CA.EXAMPLE"',
      ]),
      ep("mx.example.org", "MX", [
        "10 Mail.Example.org.",
        "10 mail.example.org.",
      ]),
    ]),
  ], NOW);
  const data = (owner: string) =>
    lines(build).filter((l) => l.startsWith(owner));
  assert.equal(data("txt.").length, 2, "TXT strings are case-sensitive");
  assert.equal(data("caa.").length, 2, "CAA values are case-sensitive");
  assert.equal(data("mx.").length, 1, "names are not (RFC 4343)");
  assert.deepEqual(build.problems, []);
});

Deno.test("withSerial stamps the SOA serial and shares every other RRset", () => {
  const built = buildZoneContent(
    zone({}, 7),
    [recordSet("web", [ep("www.example.org", "A", ["192.0.2.1"])])],
    NOW,
  ).content;
  assert.equal(withSerial(built, 7), built);
  const stamped = withSerial(built, 2030010101);
  assert.equal(stamped.serial, 2030010101);
  // Built afresh with that serial, the zone is the same.
  assert.deepEqual(
    stamped,
    buildZoneContent(
      zone({}, 2030010101),
      [recordSet("web", [ep("www.example.org", "A", ["192.0.2.1"])])],
      NOW,
    ).content,
  );
  const shared = stamped.rrsets.filter((r, i) => r === built.rrsets[i]);
  assert.equal(shared.length, built.rrsets.length - 1);
  // The built content is left as it was.
  assert.equal(built.serial, 7);
  const soa = built.rrsets.find((r) => r.type === 6)!.rdata[0]!;
  assert.equal(soa.type === "SOA" && soa.serial, 7);
});
