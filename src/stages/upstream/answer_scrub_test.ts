import assert from "node:assert/strict";
import { RCODE, typeName } from "../../dns/wire/constants.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { type AnswerText, upstreamWire } from "../cache/testdata/answers.ts";
import { askedQuestion, scrubbedAnswer } from "./answer_scrub.ts";
import { readRecords } from "./message_records.ts";
import { retype, rrsig } from "./testdata/scrub_fixtures.ts";

/**
 * `owner TYPE` of each record of each section (`CLASSn` between when not
 * IN), sorted: the fixtures' encoder orders records its own way.
 */
function sections(message: Uint8Array): string[][] {
  const out: string[][] = [[], [], []];
  for (const r of readRecords(message).records) {
    const cls = r.class === 1 || r.type === 41 ? "" : ` CLASS${r.class}`;
    out[r.section]!.push(`${r.owner}${cls} ${typeName(r.type)}`);
  }
  return out.map((section) => section.sort());
}

/** Scrubs the upstream answer `text` to `question`. */
function scrub(
  question: string,
  text: AnswerText,
  patch: (wire: Uint8Array) => void = () => {},
): string[][] {
  const req = requestFor(question);
  const wire = upstreamWire(req, text);
  patch(wire);
  return sections(scrubbedAnswer(wire, askedQuestion(req)));
}

const SOA = "test. 300 IN SOA ns.test. admin.test. 1 3600 600 86400 300";

Deno.test("scrubbedAnswer keeps only the asked type at the chain's names", async (t) => {
  await t.step("an A record in an AAAA answer: NODATA with its SOA", () => {
    assert.deepEqual(
      scrub("wrongtypesoa.test. AAAA", {
        answer: ["wrongtypesoa.test. 300 IN A 6.6.6.6"],
        authority: [SOA],
      }),
      [[], ["test. SOA"], []],
    );
  });
  await t.step("a TXT record beside the A asked for", () => {
    assert.deepEqual(
      scrub("mixtype.test. A", {
        answer: [
          "mixtype.test. 300 IN A 192.0.2.1",
          "mixtype.test. 300 IN TXT evil",
        ],
      })[0],
      ["mixtype.test. A"],
    );
  });
  await t.step("at a CNAME's target too", () => {
    assert.deepEqual(
      scrub("www.test. A", {
        answer: [
          "www.test. 300 IN CNAME web.test.",
          "web.test. 300 IN TXT evil",
          "web.test. 300 IN A 192.0.2.1",
        ],
      })[0],
      ["web.test. A", "www.test. CNAME"],
    );
  });
});

Deno.test("scrubbedAnswer keeps every type for ANY, but no TSIG", () => {
  const answer = [
    "any.test. 300 IN A 192.0.2.1",
    "any.test. 300 IN TXT hello",
    "any.test. 300 IN MX 10 mail.any.test.",
    "any.test. 300 IN TXT tsig",
  ];
  assert.deepEqual(
    scrub("any.test. ANY", { answer }, retype(3, 250, 1))[0],
    ["any.test. A", "any.test. MX", "any.test. TXT"],
  );
});

Deno.test("scrubbedAnswer drops records of another class than the question's", () => {
  assert.deepEqual(
    scrub(
      "www.test. A",
      {
        answer: [
          "www.test. 300 IN A 192.0.2.1",
          "www.test. 300 IN A 192.0.2.2",
          "www.test. 300 IN CNAME evil.test.",
        ],
        authority: [SOA],
      },
      (wire) => {
        retype(1, 1, 32769)(wire); // mDNS's cache-flush bit
        retype(2, 5, 3)(wire); // a CHAOS CNAME is no chain
        retype(3, 6, 3)(wire);
      },
    ),
    [["www.test. A"], [], []],
  );
});

Deno.test("scrubbedAnswer keeps an RRSIG only beside the records it signs", () => {
  assert.deepEqual(
    scrub("www.test. A", {
      answer: [
        "www.test. 300 IN A 192.0.2.1",
        rrsig("www.test.", 1),
        rrsig("www.test.", 16), // signs a TXT that is not there
        rrsig("evil.test.", 1),
      ],
      authority: [SOA, rrsig("test.", 6), rrsig("test.", 2)],
    }),
    [["www.test. A", "www.test. RRSIG"], ["test. RRSIG", "test. SOA"], []],
  );
});

Deno.test("scrubbedAnswer drops a TSIG, TKEY or SIG(0) from the additional section", async (t) => {
  const cases: [string, number, string][] = [
    ["TSIG", 250, "key."],
    ["TKEY", 249, "key."],
    ["SIG(0)", 24, "."],
  ];
  for (const [name, type, owner] of cases) {
    await t.step(name, () => {
      const req = requestFor("tsig.test. A", { edns: {} });
      const wire = upstreamWire(req, {
        answer: ["tsig.test. 300 IN A 192.0.2.1"],
        additional: [`${owner} 0 IN TXT signature`],
        edns: true,
      });
      retype(1, type, 255)(wire);
      const out = scrubbedAnswer(wire, askedQuestion(req));
      assert.deepEqual(sections(out), [["tsig.test. A"], [], [". OPT"]]);
    });
  }
});

Deno.test("scrubbedAnswer keeps in authority only the SOA, NS and proofs of the chain's zones", async (t) => {
  await t.step("another zone's servers go", () => {
    assert.deepEqual(
      scrub("oob.test. A", {
        answer: ["oob.test. 300 IN A 192.0.2.1"],
        authority: [
          "victim.test. 300 IN NS ns.evil.example.",
          "test. 300 IN NS ns.test.",
        ],
      })[1],
      ["test. NS"],
    );
  });
  await t.step("an escaped dot is inside a label, not a zone cut", () => {
    // Our encoders write no escaped dot: the question is given as readName
    // would render one (the scrub never reads the question section).
    const wire = upstreamWire(requestFor("test. A"), {
      rcode: RCODE.NXDOMAIN,
      authority: [
        "victim.test. 300 IN NS ns.evil.example.",
        "test. 300 IN NS ns.test.",
      ],
    });
    const asked = { name: "a\\.victim.test.", type: 1, class: 1 };
    assert.deepEqual(sections(scrubbedAnswer(wire, asked))[1], ["test. NS"]);
  });
  await t.step(
    "another zone's SOA goes, leaving an NXDOMAIN without one",
    () => {
      assert.deepEqual(
        scrub("nxoob.test. A", {
          rcode: RCODE.NXDOMAIN,
          authority: [
            "evil.example. 86400 IN SOA ns.evil.example. a.evil.example. 1 2 3 4 86400",
          ],
        }),
        [[], [], []],
      );
    },
  );
  await t.step("the SOA of a CNAME target's zone stays", () => {
    assert.deepEqual(
      scrub("www.test. A", {
        rcode: RCODE.NXDOMAIN,
        answer: ["www.test. 300 IN CNAME gone.example."],
        authority: [
          "example. 300 IN SOA ns.example. a.example. 1 2 3 4 300",
        ],
      })[1],
      ["example. SOA"],
    );
  });
  await t.step("address, alias and data records go; NSEC stays", () => {
    assert.deepEqual(
      scrub("www.test. AAAA", {
        authority: [
          SOA,
          "www.test. 300 IN A 6.6.6.6",
          "www.test. 300 IN CNAME evil.test.",
          "www.test. 300 IN TXT evil",
          "www.test. 300 IN TYPE47 \\# 13 03777777047465737400000140",
        ],
      })[1],
      ["test. SOA", "www.test. NSEC"],
    );
  });
});

Deno.test("scrubbedAnswer keeps in additional only the addresses of servers named above", async (t) => {
  await t.step("the audit's oob answer", () => {
    assert.deepEqual(
      scrub("oob.test. A", {
        answer: ["oob.test. 300 IN A 192.0.2.1"],
        authority: ["victim.test. 300 IN NS ns.evil.example."],
        additional: [
          "www.victim.test. 300 IN A 6.6.6.6",
          "ns.evil.example. 300 IN A 6.6.6.6",
        ],
      }),
      [["oob.test. A"], [], []],
    );
  });
  await t.step("NS, MX, SRV and HTTPS targets", () => {
    assert.deepEqual(
      scrub("test. ANY", {
        answer: [
          "test. 300 IN MX 10 mail.test.",
          "test. 300 IN SRV 0 0 53 dns.test.",
          "test. 300 IN HTTPS 1 . alpn=h2",
        ],
        authority: ["test. 300 IN NS ns.test."],
        additional: [
          "ns.test. 300 IN A 192.0.2.53",
          "mail.test. 300 IN AAAA 2001:db8::25",
          "dns.test. 300 IN A 192.0.2.54",
          "test. 300 IN A 192.0.2.80",
          "other.test. 300 IN A 6.6.6.6",
        ],
      })[2],
      ["dns.test. A", "mail.test. AAAA", "ns.test. A", "test. A"],
    );
  });
  await t.step("NS, CNAME and other data go (DNS-SD's TXT too)", () => {
    assert.deepEqual(
      scrub("_http._tcp.test. PTR", {
        answer: ["_http._tcp.test. 300 IN PTR web._http._tcp.test."],
        additional: [
          "web._http._tcp.test. 300 IN TXT path=/",
          "victim.test. 300 IN NS ns.evil.example.",
          "www.victim.test. 300 IN CNAME evil.example.",
        ],
      })[2],
      [],
    );
  });
  await t.step("a delegation's glue: the same message, not a copy", () => {
    const req = requestFor("www.test. A", { edns: {} });
    const wire = upstreamWire(req, {
      answer: [
        "www.test. 300 IN CNAME web.test.",
        "web.test. 300 IN A 192.0.2.1",
      ],
      authority: ["test. 300 IN NS ns.test."],
      additional: ["ns.test. 300 IN A 192.0.2.53"],
      edns: true,
    });
    assert.equal(scrubbedAnswer(wire, askedQuestion(req)), wire);
  });
});

Deno.test("scrubbedAnswer reads nothing after the OPT record, which the client's answer leaves out", async (t) => {
  const req = requestFor("www.test. A", { edns: {} });
  /** `answer`, then the OPT, then one more record whose RDLENGTH overruns. */
  function withTail(answer: string[]): Uint8Array {
    const wire = upstreamWire(req, { answer, edns: true });
    const tail = [0, 0, 1, 0, 1, 0, 0, 0, 0, 0xff, 0xff];
    const out = new Uint8Array(wire.length + tail.length);
    out.set(wire);
    out.set(tail, wire.length);
    out[11]! += 1; // ARCOUNT
    return out;
  }
  await t.step("nothing to drop", () => {
    const wire = withTail(["www.test. 300 IN A 192.0.2.1"]);
    assert.equal(scrubbedAnswer(wire, askedQuestion(req)), wire);
  });
  await t.step("something to drop", () => {
    const wire = withTail([
      "www.test. 300 IN A 192.0.2.1",
      "www.test. 300 IN TXT evil",
    ]);
    assert.deepEqual(sections(scrubbedAnswer(wire, askedQuestion(req))), [
      ["www.test. A"],
      [],
      [". OPT"],
    ]);
  });
});
