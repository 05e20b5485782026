import assert from "node:assert/strict";
import type { RRSet } from "../rrset.ts";
import { CLASS, EDNS_OPTION, OPCODE, RCODE, TYPE } from "./constants.ts";
import { encodeResponse, patchId, type ResponseSpec } from "./response.ts";
import { buffer, decodeMessage } from "./testdata/dns_packet.ts";
import { records } from "./testdata/records.ts";

const QUESTION = { name: "www.example.org.", type: TYPE.A, class: CLASS.IN };
const TWO_A = records(
  "www.example.org. 300 IN A 192.0.2.1",
  "www.example.org. 300 IN A 192.0.2.2",
);

function spec(fields: Partial<ResponseSpec> = {}): ResponseSpec {
  return { id: 0x1234, opcode: OPCODE.QUERY, rcode: RCODE.NOERROR, ...fields };
}

/** A TXT RRset whose one record carries `octets` octets of text. */
function txt(name: string, octets: number): RRSet {
  const strings: Uint8Array[] = [];
  for (let left = octets; left > 0; left -= 255) {
    strings.push(new Uint8Array(Math.min(left, 255)).fill(0x78));
  }
  return {
    name,
    type: TYPE.TXT,
    ttl: 60,
    rdata: [{ type: "TXT", strings }],
  };
}

Deno.test("encodeResponse writes the header flags", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      opcode: OPCODE.NOTIFY,
      rcode: RCODE.NXDOMAIN,
      aa: true,
      rd: true,
      ra: true,
      ad: true,
      cd: true,
    }),
    512,
  ));
  assert.deepEqual(
    [decoded.id, decoded.type, decoded.opcode, decoded.rcode, decoded.flags],
    [0x1234, "response", "NOTIFY", "NXDOMAIN", 0x25b3], // dns-packet drops QR
  );
});

Deno.test("encodeResponse writes the question and the answer", () => {
  const decoded = decodeMessage(
    encodeResponse(spec({ question: QUESTION, answer: TWO_A }), 512),
  );
  assert.deepEqual(
    [decoded.questions, decoded.answers.map((rr) => [rr.name, rr.data])],
    [
      [{ name: "www.example.org", type: "A", class: "IN" }],
      [["www.example.org", "192.0.2.1"], ["www.example.org", "192.0.2.2"]],
    ],
  );
});

Deno.test("encodeResponse points answer owners at the question name", () => {
  const message = encodeResponse(
    spec({ question: QUESTION, answer: TWO_A }),
    512,
  );
  const questionEnd = 12 + 17 + 4;
  const recordOctets = 2 + 10 + 4;
  assert.deepEqual(
    [
      message.length,
      [...message.subarray(questionEnd, questionEnd + 2)],
      [...message.subarray(
        questionEnd + recordOctets,
        questionEnd + recordOctets + 2,
      )],
    ],
    [questionEnd + 2 * recordOctets, [0xc0, 12], [0xc0, 12]],
  );
});

Deno.test("encodeResponse answers in the case of the question", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: { ...QUESTION, name: "WwW.ExAmple.ORG." },
      answer: TWO_A,
    }),
    512,
  ));
  assert.deepEqual(decoded.answers.map((rr) => rr.name), [
    "WwW.ExAmple.ORG",
    "WwW.ExAmple.ORG",
  ]);
});

Deno.test("encodeResponse compresses names inside NS, MX and SOA data", () => {
  const soa: RRSet = {
    name: "example.org.",
    type: TYPE.SOA,
    ttl: 300,
    rdata: [{
      type: "SOA",
      mname: "ns1.example.org.",
      rname: "hostmaster.example.org.",
      serial: 1,
      refresh: 2,
      retry: 3,
      expire: 4,
      minimum: 5,
    }],
  };
  const message = encodeResponse(
    spec({
      question: { name: "example.org.", type: TYPE.MX, class: CLASS.IN },
      answer: records("example.org. 300 IN MX 10 mail.example.org."),
      authority: [
        soa,
        ...records("example.org. 300 IN NS ns1.example.org."),
      ],
    }),
    512,
  );
  // question 12+13+4; MX 2+10+2+(5+2); SOA 2+10+(4+2)+(11+2)+20; NS 2+10+2
  assert.equal(message.length, 29 + 21 + 51 + 14);
  assert.equal(decodeMessage(message).authorities[1]?.data, "ns1.example.org");
});

Deno.test("encodeResponse writes SRV, DNAME and SVCB targets whole", async (t) => {
  const question = { name: "example.org.", type: TYPE.ANY, class: CLASS.IN };
  const targetOctets = 13; // example.org. uncompressed
  const rows: { record: string; before: number }[] = [
    { record: "example.org. 300 IN SRV 0 0 443 example.org.", before: 6 },
    { record: "example.org. 300 IN DNAME example.org.", before: 0 },
    { record: "example.org. 300 IN SVCB 1 example.org.", before: 2 },
  ];
  for (const row of rows) {
    await t.step(row.record, () => {
      const message = encodeResponse(
        spec({ question, answer: records(row.record) }),
        512,
      );
      assert.equal(message.length, 29 + 12 + row.before + targetOctets);
    });
  }
});

Deno.test("encodeResponse matches names case-insensitively for compression", () => {
  const message = encodeResponse(
    spec({
      question: QUESTION,
      answer: records("www.example.org. 300 IN CNAME WEB.Example.Org."),
    }),
    512,
  );
  // CNAME target: label "web" then a pointer to "example.org" at offset 16.
  assert.deepEqual(
    [...message.subarray(message.length - 6)],
    [3, 0x57, 0x45, 0x42, 0xc0, 16],
  );
});

Deno.test("encodeResponse adds the OPT record with options", () => {
  const ede = new Uint8Array([0, 18, ...new TextEncoder().encode("blocked")]);
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: QUESTION,
      edns: {
        udpSize: 1232,
        dnssecOk: true,
        options: [
          { code: EDNS_OPTION.NSID, data: new TextEncoder().encode("node-1") },
          { code: EDNS_OPTION.EDE, data: ede },
        ],
      },
    }),
    1232,
  ));
  const opt = decoded.additionals[0]!;
  assert.deepEqual(
    [
      opt.type,
      opt.udpPayloadSize,
      opt.flag_do,
      opt.ednsVersion,
      opt.options?.map(({ code, data }) => ({ code, data })),
    ],
    ["OPT", 1232, true, 0, [
      { code: 3, data: buffer(new TextEncoder().encode("node-1")) },
      { code: 15, data: buffer(ede) },
    ]],
  );
});

Deno.test("encodeResponse puts the upper rcode bits in the OPT record", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({ rcode: RCODE.BADVERS, question: QUESTION, edns: { udpSize: 1232 } }),
    1232,
  ));
  assert.deepEqual(
    [decoded.rcode, decoded.additionals[0]?.extendedRcode],
    ["NOERROR", 1],
  );
});

Deno.test("encodeResponse refuses an extended rcode without EDNS", () => {
  assert.throws(
    () => encodeResponse(spec({ rcode: RCODE.BADVERS }), 512),
    RangeError,
  );
});

Deno.test("encodeResponse truncates at the answer RRset that does not fit, keeping the whole ones before it (as NSD and Knot)", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: QUESTION,
      answer: [...TWO_A, txt("www.example.org.", 600)],
      authority: records("example.org. 300 IN NS ns1.example.org."),
      additional: records("ns1.example.org. 300 IN A 192.0.2.53"),
      edns: { udpSize: 512 },
    }),
    512,
  ));
  assert.deepEqual(
    [
      decoded.flag_tc,
      decoded.questions.length,
      decoded.answers.length,
      decoded.authorities.length,
      decoded.additionals.map((rr) => rr.type),
    ],
    [true, 1, 2, 0, ["OPT"]],
  );
});

Deno.test("encodeResponse truncates at the authority RRset that does not fit, keeping the answer", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: QUESTION,
      answer: TWO_A,
      authority: [txt("example.org.", 500)],
    }),
    512,
  ));
  assert.deepEqual(
    [decoded.flag_tc, decoded.answers.length, decoded.authorities.length],
    [true, 2, 0],
  );
});

Deno.test("encodeResponse reserves room for the OPT record", async (t) => {
  // 12 + 15 (question) + 12 + 471 (TXT) = 510 octets; the OPT adds 11.
  const answer = [txt("x.example.", 469)];
  const question = { name: "x.example.", type: TYPE.TXT, class: CLASS.IN };
  await t.step("without EDNS it fits", () => {
    const message = encodeResponse(spec({ question, answer }), 512);
    assert.deepEqual([message.length, decodeMessage(message).flag_tc], [
      510,
      false,
    ]);
  });
  await t.step("with EDNS it is truncated", () => {
    const message = encodeResponse(
      spec({ question, answer, edns: { udpSize: 512 } }),
      512,
    );
    assert.equal(decodeMessage(message).flag_tc, true);
  });
});

Deno.test("encodeResponse drops additional RRsets that do not fit without TC", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: QUESTION,
      answer: TWO_A,
      additional: [
        txt("big.example.org.", 600),
        ...records("big.example.org. 300 IN A 192.0.2.9"),
      ],
    }),
    512,
  ));
  assert.deepEqual(
    [
      decoded.flag_tc,
      decoded.answers.length,
      decoded.additionals.map((rr) => [rr.name, rr.type]),
    ],
    [false, 2, [["big.example.org", "A"]]],
  );
});

Deno.test("encodeResponse sets TC and stops when required additional data does not fit (RFC 9471)", () => {
  const decoded = decodeMessage(encodeResponse(
    spec({
      question: QUESTION,
      answer: TWO_A,
      additional: [
        ...records("ns1.example.org. 300 IN A 192.0.2.53"),
        txt("ns2.example.org.", 600),
        ...records("ns3.example.org. 300 IN A 192.0.2.55"),
      ],
      requiredAdditional: 2,
    }),
    512,
  ));
  assert.deepEqual(
    [
      decoded.flag_tc,
      decoded.answers.length,
      decoded.additionals.map((rr) => rr.name),
    ],
    [true, 2, ["ns1.example.org"]],
  );
});

Deno.test("encodeResponse allows up to 65535 octets for TCP", () => {
  const answer = [txt("www.example.org.", 20000)];
  const decoded = decodeMessage(
    encodeResponse(spec({ question: QUESTION, answer }), 65535),
  );
  assert.deepEqual([decoded.flag_tc, decoded.answers.length], [false, 1]);
});

Deno.test("encodeResponse returns a copy that later calls leave alone", () => {
  const first = encodeResponse(
    spec({ question: QUESTION, answer: TWO_A }),
    512,
  );
  const before = [...first];
  encodeResponse(spec({ id: 9, question: { ...QUESTION, name: "a.b." } }), 512);
  assert.deepEqual([...first], before);
});

Deno.test("patchId replaces the ID in a copy", () => {
  const message = encodeResponse(spec({ question: QUESTION }), 512);
  const patched = patchId(message, 0xbeef);
  assert.deepEqual(
    [patched[0], patched[1], message[0], message[1], patched.length],
    [0xbe, 0xef, 0x12, 0x34, message.length],
  );
});

Deno.test("encodeResponse leaves out a TSIG record that does not fit the UDP limit, and sets TC", () => {
  // A TSIG error record with 255-octet key and algorithm names (a fuzz
  // run got an 807-octet answer to a 512-octet client, TC clear).
  const last = new Uint8Array(530).fill(1);
  const small = new Uint8Array(60).fill(1);
  const cases: [string, Uint8Array, number, boolean][] = [
    ["fits", small, 512, false],
    ["too big for 512", last, 512, true],
    ["fits over TCP", last, 65535, false],
  ];
  for (const [why, record, maxSize, cut] of cases) {
    const wire = encodeResponse(
      spec({ rcode: RCODE.NOTAUTH, question: QUESTION, last: record }),
      maxSize,
    );
    assert.ok(wire.length <= maxSize, `${why}: ${wire.length} octets`);
    const tc = (wire[2]! & 0x02) !== 0;
    const arcount = (wire[10]! << 8) | wire[11]!;
    assert.deepEqual([tc, arcount], cut ? [true, 0] : [false, 1], why);
  }
});
