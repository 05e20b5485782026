import assert from "node:assert/strict";
import { typeCode } from "../dns/rdata_text.ts";
import { buildZoneIndex } from "./index.ts";
import { lookup, type LookupOptions, MAX_CHAIN_LINKS } from "./lookup.ts";
import {
  EXAMPLE_ORG,
  INNER_CORP,
  KID_EXAMPLE_ORG,
  SECOND_TEST,
} from "./testdata/lookup_zones.ts";
import { sectionText, zoneFromText } from "../testing/zone_text.ts";

interface Case {
  q: string;
  rcode: number;
  aa: boolean;
  answer?: string[];
  authority?: string[];
  additional?: string[];
  kind?: string;
  chainLeftLocalZones?: boolean;
}

const NOERROR = 0;
const NXDOMAIN = 3;
const O = "example.org.";
const NS_AUTH = [
  `${O} 300 IN NS ns.other.net.`,
  `${O} 300 IN NS ns1.${O}`,
];
const NS_GLUE = [
  `ns1.${O} 300 IN A 192.0.2.53`,
  `ns1.${O} 300 IN AAAA 2001:db8::53`,
];
const NEG = [
  `${O} 120 IN SOA ns1.${O} hostmaster.${O} 7 3600 900 1209600 120`,
];
const SECOND_NEG = [
  "second.test. 60 IN SOA ns1.second.test. h.second.test. 1 3600 900 1209600 60",
];
const KID_NEG = [
  "kid.example.org. 50 IN SOA ns1.kid.example.org. h.kid.example.org. 3 3600 900 1209600 50",
];
const SUB_REFERRAL = {
  rcode: NOERROR,
  aa: false,
  kind: "referral",
  authority: [
    `sub.${O} 300 IN NS ns.elsewhere.net.`,
    `sub.${O} 300 IN NS ns.sub.${O}`,
  ],
  additional: [
    `ns.sub.${O} 300 IN A 192.0.2.99`,
    `ns.sub.${O} 300 IN AAAA 2001:db8::99`,
  ],
};

const index = buildZoneIndex(
  [EXAMPLE_ORG, SECOND_TEST, KID_EXAMPLE_ORG, INNER_CORP],
  [
    { name: "fwd.example.org.", objectName: "fwd", upstreamGroup: "corp-dns" },
    { name: "corp.", objectName: "corp", upstreamGroup: "corp" },
    { name: ".", objectName: "root", upstreamGroup: "default" },
  ],
);

function typeOf(mnemonic: string): number {
  if (mnemonic === "ANY") return 255;
  if (mnemonic === "DS") return 43;
  if (mnemonic === "SOA") return 6;
  return typeCode(mnemonic)!;
}

async function runCases(
  t: Deno.TestContext,
  cases: Case[],
  // The tables are NSD's answers with its defaults; kudurru's own default
  // (no apex NS in authority) has its own test below.
  options: LookupOptions = { apexNsInAuthority: true },
): Promise<void> {
  for (const c of cases) {
    await t.step(c.q, () => {
      const [qname, qtype] = c.q.split(" ");
      const got = lookup(index, qname!, typeOf(qtype!), options);
      assert.ok(got !== undefined, "no zone matched");
      assert.deepEqual(
        {
          rcode: got.rcode,
          aa: got.aa,
          answer: sectionText(got.answer),
          authority: sectionText(got.authority),
          additional: sectionText(got.additional),
        },
        {
          rcode: c.rcode,
          aa: c.aa,
          answer: [...(c.answer ?? [])].sort(),
          authority: [...(c.authority ?? [])].sort(),
          additional: [...(c.additional ?? [])].sort(),
        },
      );
      if (c.kind !== undefined) assert.equal(got.kind, c.kind);
      if (c.chainLeftLocalZones !== undefined) {
        assert.equal(got.chainLeftLocalZones, c.chainLeftLocalZones);
      }
    });
  }
}

Deno.test("lookup answers exact matches, NODATA and NXDOMAIN like NSD", async (t) => {
  await runCases(t, [
    {
      q: "www.example.org. A",
      rcode: NOERROR,
      aa: true,
      kind: "answer",
      answer: [`www.${O} 300 IN A 192.0.2.1`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "WwW.ExAmPlE.OrG A",
      rcode: NOERROR,
      aa: true,
      answer: [`www.${O} 300 IN A 192.0.2.1`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "www.example.org. MX",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      authority: NEG,
    },
    {
      q: "nope.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      kind: "nxdomain",
      authority: NEG,
    },
    {
      q: "example.org. SOA",
      rcode: NOERROR,
      aa: true,
      answer: [
        `${O} 3600 IN SOA ns1.${O} hostmaster.${O} 7 3600 900 1209600 120`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "example.org. NS",
      rcode: NOERROR,
      aa: true,
      answer: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "b.c.example.org. A",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      authority: NEG,
    },
    { q: "c.example.org. TXT", rcode: NOERROR, aa: true, authority: NEG },
    { q: "www.example.org. DS", rcode: NOERROR, aa: true, authority: NEG },
  ]);
});

Deno.test("lookup adds in-zone addresses for NS, MX and SRV targets like NSD", async (t) => {
  await runCases(t, [
    {
      q: "example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [
        `${O} 300 IN MX 10 mail.${O}`,
        `${O} 300 IN MX 20 mail.other.net.`,
      ],
      authority: NS_AUTH,
      additional: [`mail.${O} 300 IN A 192.0.2.25`, ...NS_GLUE],
    },
    {
      q: "_sip._tcp.example.org. SRV",
      rcode: NOERROR,
      aa: true,
      answer: [`_sip._tcp.${O} 300 IN SRV 0 5 5060 sip.${O}`],
      authority: NS_AUTH,
      additional: [`sip.${O} 300 IN A 192.0.2.60`, ...NS_GLUE],
    },
    {
      q: "mxsub.example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [
        `mxsub.${O} 300 IN MX 10 ns.sub.${O}`,
        `mxsub.${O} 300 IN MX 20 www.${O}`,
      ],
      authority: NS_AUTH,
      additional: [
        `www.${O} 300 IN A 192.0.2.1`,
        `www.${O} 300 IN AAAA 2001:db8::1`,
        ...NS_GLUE,
      ],
    },
    {
      q: "mxo.example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [`mxo.${O} 300 IN MX 10 host.second.test.`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "mxw.example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [`mxw.${O} 300 IN MX 10 foo.wild.${O}`],
      authority: NS_AUTH,
      additional: [`foo.wild.${O} 300 IN A 192.0.2.3`, ...NS_GLUE],
    },
    {
      q: "srvx.example.org. SRV",
      rcode: NOERROR,
      aa: true,
      answer: [`srvx.${O} 300 IN SRV 0 0 1 foo.wild.${O}`],
      authority: NS_AUTH,
      additional: [`foo.wild.${O} 300 IN A 192.0.2.3`, ...NS_GLUE],
    },
  ]);
});

Deno.test("lookup follows CNAME chains inside and across local zones", async (t) => {
  await runCases(t, [
    {
      q: "alias.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `alias.${O} 300 IN CNAME www.${O}`,
        `www.${O} 300 IN A 192.0.2.1`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "alias2.example.org. AAAA",
      rcode: NOERROR,
      aa: true,
      answer: [
        `alias2.${O} 300 IN CNAME alias.${O}`,
        `alias.${O} 300 IN CNAME www.${O}`,
        `www.${O} 300 IN AAAA 2001:db8::1`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "alias.example.org. CNAME",
      rcode: NOERROR,
      aa: true,
      answer: [`alias.${O} 300 IN CNAME www.${O}`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "alias.example.org. MX",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      answer: [`alias.${O} 300 IN CNAME www.${O}`],
      authority: NEG,
    },
    {
      q: "ext.example.org. A",
      rcode: NOERROR,
      aa: true,
      kind: "answer",
      chainLeftLocalZones: true,
      answer: [`ext.${O} 300 IN CNAME www.other.net.`],
    },
    {
      q: "tofwd.example.org. A",
      rcode: NOERROR,
      aa: true,
      chainLeftLocalZones: true,
      answer: [`tofwd.${O} 300 IN CNAME www.fwd.${O}`],
    },
    {
      q: "toothr.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `toothr.${O} 300 IN CNAME host.second.test.`,
        "host.second.test. 600 IN A 192.0.2.201",
      ],
      authority: ["second.test. 600 IN NS ns1.second.test."],
      additional: ["ns1.second.test. 600 IN A 192.0.2.200"],
    },
    {
      q: "tonx.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      kind: "nxdomain",
      answer: [`tonx.${O} 300 IN CNAME nothere.${O}`],
      authority: NEG,
    },
    {
      q: "tonx2.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      answer: [`tonx2.${O} 300 IN CNAME nothere.second.test.`],
      authority: SECOND_NEG,
    },
    {
      q: "loop1.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `loop1.${O} 300 IN CNAME loop2.${O}`,
        `loop2.${O} 300 IN CNAME loop1.${O}`,
      ],
    },
    {
      q: "tosub.example.org. A",
      rcode: NOERROR,
      aa: true,
      kind: "referral",
      answer: [`tosub.${O} 300 IN CNAME deep.x.sub.${O}`],
      authority: SUB_REFERRAL.authority,
      additional: SUB_REFERRAL.additional,
    },
  ]);
});

Deno.test("lookup synthesises from wildcards, blocked by existing names and ENTs", async (t) => {
  await runCases(t, [
    {
      q: "foo.wild.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [`foo.wild.${O} 300 IN A 192.0.2.3`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "a.foo.wild.example.org. TXT",
      rcode: NOERROR,
      aa: true,
      answer: [`a.foo.wild.${O} 300 IN TXT "wild"`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "foo.wild.example.org. MX",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      authority: NEG,
    },
    { q: "x.wild.example.org. A", rcode: NOERROR, aa: true, authority: NEG },
    {
      q: "tocn.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `tocn.${O} 300 IN CNAME foo.cn.${O}`,
        `foo.cn.${O} 300 IN CNAME www.${O}`,
        `www.${O} 300 IN A 192.0.2.1`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "bar.cn.example.org. AAAA",
      rcode: NOERROR,
      aa: true,
      answer: [
        `bar.cn.${O} 300 IN CNAME www.${O}`,
        `www.${O} 300 IN AAAA 2001:db8::1`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "z.ent.example.org. A",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      authority: NEG,
    },
    {
      q: "q.z.ent.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      authority: NEG,
    },
    {
      q: "w.ent.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [`w.ent.${O} 300 IN A 192.0.2.4`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
  ]);
});

Deno.test("lookup follows DNAME with a synthesised CNAME", async (t) => {
  const dname = `d.${O} 300 IN DNAME other.${O}`;
  await runCases(t, [
    {
      q: "d.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [`d.${O} 300 IN A 192.0.2.6`],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "d.example.org. DNAME",
      rcode: NOERROR,
      aa: true,
      answer: [dname],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "x.d.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        dname,
        `x.d.${O} 300 IN CNAME x.other.${O}`,
        `x.other.${O} 300 IN A 192.0.2.7`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "y.d.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      answer: [dname, `y.d.${O} 300 IN CNAME y.other.${O}`],
      authority: NEG,
    },
    {
      q: "x.d.example.org. DNAME",
      rcode: NOERROR,
      aa: true,
      answer: [dname, `x.d.${O} 300 IN CNAME x.other.${O}`],
      authority: NEG,
    },
    {
      q: "tod.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `tod.${O} 300 IN CNAME x.d.${O}`,
        dname,
        `x.d.${O} 300 IN CNAME x.other.${O}`,
        `x.other.${O} 300 IN A 192.0.2.7`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
  ]);
});

Deno.test("lookup refers below zone cuts and answers DS at the cut", async (t) => {
  await runCases(t, [
    { q: "sub.example.org. A", ...SUB_REFERRAL },
    { q: "sub.example.org. NS", ...SUB_REFERRAL },
    { q: "deep.x.sub.example.org. A", ...SUB_REFERRAL },
    { q: "ns.sub.example.org. A", ...SUB_REFERRAL },
    { q: "sub.example.org. ANY", ...SUB_REFERRAL },
    {
      q: "sub.example.org. DS",
      rcode: NOERROR,
      aa: true,
      kind: "nodata",
      authority: NEG,
    },
    {
      q: "nsref.example.org. A",
      rcode: NOERROR,
      aa: false,
      kind: "referral",
      authority: [`nsref.${O} 300 IN NS ns1.${O}`],
      additional: NS_GLUE,
    },
  ]);
});

Deno.test("lookup answers ANY with one RRset chosen like NSD", async (t) => {
  await runCases(t, [
    {
      q: "www.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [`www.${O} 300 IN A 192.0.2.1`],
    },
    {
      q: "example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [
        `${O} 3600 IN SOA ns1.${O} hostmaster.${O} 7 3600 900 1209600 120`,
      ],
    },
    {
      q: "alias.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [`alias.${O} 300 IN CNAME www.${O}`],
    },
    {
      q: "ord2.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [`ord2.${O} 300 IN MX 10 www.${O}`],
      additional: [
        `www.${O} 300 IN A 192.0.2.1`,
        `www.${O} 300 IN AAAA 2001:db8::1`,
      ],
    },
    {
      q: "ord3.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [`ord3.${O} 300 IN PTR www.${O}`],
    },
    {
      q: "ord4.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [
        `ord4.${O} 300 IN SSHFP 1 1 AABBCCDDEEFF00112233445566778899AABBCCDD`,
      ],
    },
    {
      q: "foo.wild.example.org. ANY",
      rcode: NOERROR,
      aa: true,
      answer: [`foo.wild.${O} 300 IN A 192.0.2.3`],
    },
    { q: "nope.example.org. ANY", rcode: NXDOMAIN, aa: true, authority: NEG },
    { q: "b.c.example.org. ANY", rcode: NOERROR, aa: true, authority: NEG },
  ]);
});

Deno.test("lookup picks the longest matching zone among primary and forward zones", async (t) => {
  const KID_NS = "kid.example.org. 100 IN NS ns1.kid.example.org.";
  const KID_GLUE = "ns1.kid.example.org. 100 IN A 192.0.2.150";
  await runCases(t, [
    {
      q: "kid.example.org. A",
      rcode: NOERROR,
      aa: true,
      authority: KID_NEG,
    },
    {
      q: "kid.example.org. NS",
      rcode: NOERROR,
      aa: true,
      answer: [KID_NS],
      additional: [KID_GLUE],
    },
    {
      q: "kid.example.org. DS",
      rcode: NOERROR,
      aa: true,
      authority: NEG,
    },
    {
      q: "x.kid.example.org. A",
      rcode: NXDOMAIN,
      aa: true,
      authority: KID_NEG,
    },
    {
      q: "tokid.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `tokid.${O} 300 IN CNAME www.kid.${O}`,
        "www.kid.example.org. 100 IN A 192.0.2.151",
      ],
      authority: [KID_NS],
      additional: [KID_GLUE],
    },
    {
      q: "up.kid.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `up.kid.${O} 100 IN CNAME www.${O}`,
        `www.${O} 300 IN A 192.0.2.1`,
      ],
      authority: NS_AUTH,
      additional: NS_GLUE,
    },
    {
      q: "app.inner.corp. A",
      rcode: NOERROR,
      aa: true,
      answer: ["app.inner.corp. 60 IN A 10.0.0.1"],
      authority: ["inner.corp. 60 IN NS ns.inner.corp."],
      additional: ["ns.inner.corp. 60 IN A 10.0.0.53"],
    },
  ]);
});

Deno.test("lookup hands names of forward zones to their upstream group", async (t) => {
  for (
    const [qname, zone, group] of [
      ["www.fwd.example.org.", "fwd.example.org.", "corp-dns"],
      ["other.corp.", "corp.", "corp"],
      ["www.example.net.", ".", "default"],
    ]
  ) {
    await t.step(qname!, () => {
      const got = lookup(index, qname!, 1);
      assert.equal(got?.kind, "forward");
      assert.equal(got?.zone, zone);
      assert.equal(got?.upstreamGroup, group);
      assert.equal(got?.aa, false);
    });
  }
});

Deno.test("lookup answers NODATA from the parent for names leading to a local child zone", async (t) => {
  const child = zoneFromText("in.gap.example.org.", [
    "in.gap.example.org. 100 IN SOA ns1.example.org. h.example.org. 3 3600 900 1209600 40",
    "in.gap.example.org. 100 IN A 192.0.2.44",
  ]);
  const gap = buildZoneIndex([EXAMPLE_ORG, child], []);
  for (const q of ["gap.example.org. A", "in.gap.example.org. DS"]) {
    await t.step(q, () => {
      const [qname, qtype] = q.split(" ");
      const got = lookup(gap, qname!, typeOf(qtype!))!;
      assert.equal(got.kind, "nodata");
      assert.deepEqual(sectionText(got.authority), NEG);
    });
  }
  await t.step("x.gap.example.org. A", () => {
    assert.equal(lookup(gap, "x.gap.example.org.", 1)!.kind, "nxdomain");
  });
});

Deno.test("lookup returns undefined when no zone covers the name", () => {
  const only = buildZoneIndex([SECOND_TEST], []);
  assert.equal(lookup(only, "www.example.org.", 1), undefined);
});

Deno.test("lookup by default leaves the apex NS out of positive answers but keeps target addresses", async (t) => {
  await runCases(t, [
    {
      q: "example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [
        `${O} 300 IN MX 10 mail.${O}`,
        `${O} 300 IN MX 20 mail.other.net.`,
      ],
      additional: [`mail.${O} 300 IN A 192.0.2.25`],
    },
    {
      q: "_sip._tcp.example.org. SRV",
      rcode: NOERROR,
      aa: true,
      answer: [`_sip._tcp.${O} 300 IN SRV 0 5 5060 sip.${O}`],
      additional: [`sip.${O} 300 IN A 192.0.2.60`],
    },
  ], {});
});

Deno.test("lookup adds the addresses of named SVCB and HTTPS targets like Knot (RFC 9460)", async (t) => {
  await runCases(t, [
    {
      q: "_svc.example.org. SVCB",
      rcode: NOERROR,
      aa: true,
      answer: [`_svc.${O} 300 IN SVCB 1 sip.${O} alpn="h2"`],
      additional: [`sip.${O} 300 IN A 192.0.2.60`],
    },
    {
      q: "self.example.org. HTTPS",
      rcode: NOERROR,
      aa: true,
      answer: [`self.${O} 300 IN HTTPS 1 . alpn="h3"`],
      // "." is the owner itself: nothing to add (Knot does the same).
    },
  ], {});
});

Deno.test("lookup with minimal responses adds only nameserver addresses", async (t) => {
  await runCases(t, [
    {
      q: "www.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [`www.${O} 300 IN A 192.0.2.1`],
    },
    {
      q: "example.org. MX",
      rcode: NOERROR,
      aa: true,
      answer: [
        `${O} 300 IN MX 10 mail.${O}`,
        `${O} 300 IN MX 20 mail.other.net.`,
      ],
    },
    {
      q: "example.org. NS",
      rcode: NOERROR,
      aa: true,
      answer: NS_AUTH,
      additional: NS_GLUE,
    },
    { q: "sub.example.org. A", ...SUB_REFERRAL },
    {
      q: "toothr.example.org. A",
      rcode: NOERROR,
      aa: true,
      answer: [
        `toothr.${O} 300 IN CNAME host.second.test.`,
        "host.second.test. 600 IN A 192.0.2.201",
      ],
    },
  ], { additional: "nameservers" });
});

Deno.test("lookup stops a CNAME chain after MAX_CHAIN_LINKS records", () => {
  const lines = ["chain. 60 IN SOA ns.chain. h.chain. 1 3600 900 1209600 30"];
  for (let i = 0; i < 30; i++) {
    lines.push(`c${i}.chain. 60 IN CNAME c${i + 1}.chain.`);
  }
  const chain = buildZoneIndex([zoneFromText("chain.", lines)], []);
  const got = lookup(chain, "c0.chain.", 1)!;
  assert.equal(got.answer.length, MAX_CHAIN_LINKS);
  assert.equal(got.rcode, NOERROR);
  assert.equal(got.chainLeftLocalZones, undefined);
});

Deno.test("lookup answers a wildcard below an empty non-terminal", async (t) => {
  const zone = zoneFromText("w.test.", [
    "w.test. 60 IN SOA ns.w.test. h.w.test. 1 3600 900 1209600 30",
    "*.a.b.w.test. 60 IN A 192.0.2.9",
  ]);
  const w = buildZoneIndex([zone], []);
  await t.step("the wildcard's parent is an empty non-terminal", () => {
    const got = lookup(w, "a.b.w.test.", 1)!;
    assert.equal(got.kind, "nodata");
  });
  await t.step("names below it match the wildcard", () => {
    const got = lookup(w, "x.a.b.w.test.", 1)!;
    assert.deepEqual(sectionText(got.answer), [
      "x.a.b.w.test. 60 IN A 192.0.2.9",
    ]);
  });
  await t.step("a sibling of the ENT does not", () => {
    assert.equal(lookup(w, "c.b.w.test.", 1)!.kind, "nxdomain");
  });
});

Deno.test("lookup: a star label below the leftmost makes the wildcard an empty non-terminal (RFC 4592 §2.2.1)", async (t) => {
  const zone = zoneFromText("w.test.", [
    "w.test. 60 IN SOA ns.w.test. h.w.test. 1 3600 900 1209600 30",
    "a.\\*.mid.w.test. 60 IN TXT star",
  ]);
  const w = buildZoneIndex([zone], []);
  for (const q of ["x.mid.w.test.", "y.x.mid.w.test.", "*.mid.w.test."]) {
    await t.step(`${q} matches the empty wildcard: NODATA`, () => {
      assert.equal(lookup(w, q, 1)!.kind, "nodata");
    });
  }
  await t.step("the name itself, as the wire spells it", () => {
    assert.deepEqual(sectionText(lookup(w, "a.\\*.mid.w.test.", 16)!.answer), [
      'a.\\*.mid.w.test. 60 IN TXT "star"',
    ]);
  });
});

Deno.test("lookup orders a referral's glue by server, in-domain first, and counts it as required", () => {
  const zone = zoneFromText("p.test.", [
    "p.test. 60 IN SOA ns.p.test. h.p.test. 1 3600 900 1209600 30",
    "kid.p.test. 60 IN NS ns.side.p.test.",
    "kid.p.test. 60 IN NS a.kid.p.test.",
    "kid.p.test. 60 IN NS b.kid.p.test.",
    "a.kid.p.test. 60 IN A 192.0.2.1",
    "a.kid.p.test. 60 IN AAAA 2001:db8::1",
    "b.kid.p.test. 60 IN A 192.0.2.2",
    "ns.side.p.test. 60 IN A 192.0.2.9",
  ]);
  const got = lookup(buildZoneIndex([zone], []), "www.kid.p.test.", 1)!;
  assert.equal(got.kind, "referral");
  assert.deepEqual(
    got.additional.map((r) => `${r.name} ${r.type}`),
    [
      "a.kid.p.test. 1",
      "a.kid.p.test. 28",
      "b.kid.p.test. 1",
      "ns.side.p.test. 1",
    ],
  );
  assert.equal(got.requiredAdditional, 3, "sibling glue is optional");
});

Deno.test("lookup: glue of a name server whose label holds an escaped dot is sibling glue, not in-domain", () => {
  const zone = zoneFromText("z.test.", [
    "z.test. 60 IN SOA ns.z.test. h.z.test. 1 3600 900 1209600 30",
    "sub.z.test. 60 IN NS ns.sub.z.test.",
    "sub.z.test. 60 IN NS x\\.sub.z.test.",
    "ns.sub.z.test. 60 IN A 192.0.2.1",
    "x\\.sub.z.test. 60 IN A 192.0.2.2",
  ]);
  const got = lookup(buildZoneIndex([zone], []), "www.sub.z.test.", 1)!;
  assert.equal(got.kind, "referral");
  // Only ns.sub.z.test's glue is required (TC when it does not fit).
  assert.equal(got.requiredAdditional, 1);
});

Deno.test("lookup: the names between a primary zone and a forward zone inside it are empty non-terminals, not NXDOMAIN (RFC 8020)", () => {
  const zone = zoneFromText("p.test.", [
    "p.test. 60 IN SOA ns.p.test. h.p.test. 1 3600 900 1209600 30",
  ]);
  const index = buildZoneIndex([zone], [{
    name: "a.b.p.test.",
    objectName: "lab",
    upstreamGroup: "default",
  }]);
  assert.equal(lookup(index, "b.p.test.", 1)!.kind, "nodata");
  assert.equal(lookup(index, "c.p.test.", 1)!.kind, "nxdomain");
});
