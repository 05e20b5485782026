import assert from "node:assert/strict";
import fc from "fast-check";
import { labelOctets } from "../name.ts";
import { parseQuery } from "./query.ts";
import { readName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";
import {
  AUTHENTIC_DATA,
  buffer,
  CHECKING_DISABLED,
  DNSSEC_OK,
  encodeMessage,
  RECURSION_DESIRED,
} from "./testdata/dns_packet.ts";

/** A header: id 0x1234, RD, then the four counts. */
function header(qd: number, an = 0, ns = 0, ar = 0): number[] {
  return [0x12, 0x34, 0x01, 0x00, 0, qd, 0, an, 0, ns, 0, ar];
}

/** `www.example.` in wire form. */
const WWW_EXAMPLE = [3, 0x77, 0x77, 0x77, 7, ...ascii("example"), 0];
const A_IN = [0, 1, 0, 1];

function ascii(text: string): number[] {
  return [...new TextEncoder().encode(text)];
}

/** An OPT record: root owner, type 41, size 1232, TTL, options. */
function opt(options: number[] = [], ttl = [0, 0, 0, 0]): number[] {
  return [0, 0, 41, 0x04, 0xd0, ...ttl, 0, options.length, ...options];
}

Deno.test("parseQuery reads the header and the question", () => {
  const query = parseQuery(encodeMessage({
    type: "query",
    id: 4242,
    flags: RECURSION_DESIRED,
    questions: [{ type: "AAAA", name: "www.example.org" }],
  }));
  assert.deepEqual(
    {
      id: query.id,
      opcode: query.opcode,
      qr: query.qr,
      rd: query.rd,
      cd: query.cd,
      ad: query.ad,
      counts: [query.qdcount, query.ancount, query.nscount, query.arcount],
      question: query.question,
      questionEnd: query.questionEnd,
      edns: query.edns,
    },
    {
      id: 4242,
      opcode: 0,
      qr: false,
      rd: true,
      cd: false,
      ad: false,
      counts: [1, 0, 0, 0],
      question: { name: "www.example.org.", type: 28, class: 1 },
      questionEnd: 12 + 17 + 4,
      edns: undefined,
    },
  );
});

Deno.test("parseQuery reports the raw flags word and the CD and AD bits", () => {
  const query = parseQuery(encodeMessage({
    type: "query",
    id: 1,
    flags: CHECKING_DISABLED | AUTHENTIC_DATA,
    questions: [{ type: "A", name: "example.org" }],
  }));
  assert.deepEqual([query.flags, query.cd, query.ad, query.rd], [
    0x0030,
    true,
    true,
    false,
  ]);
});

Deno.test("parseQuery keeps the case of the question name", () => {
  const query = parseQuery(encodeMessage({
    type: "query",
    id: 1,
    questions: [{ type: "A", name: "WwW.ExAmPlE.oRg" }],
  }));
  assert.equal(query.question?.name, "WwW.ExAmPlE.oRg.");
});

Deno.test("parseQuery reads the root as a question name", () => {
  const query = parseQuery(
    new Uint8Array([...header(1), 0, 0, 2, 0, 1]),
  );
  assert.deepEqual(query.question, { name: ".", type: 2, class: 1 });
});

Deno.test("parseQuery escapes special and non-printable octets", () => {
  const label = [0x61, 0x2e, 0x62, 0x5c, 0x20, 0xff, 0x00, 0x41, 0x2a];
  const query = parseQuery(
    new Uint8Array([...header(1), label.length, ...label, 0, ...A_IN]),
  );
  assert.equal(query.question?.name, "a\\.b\\\\\\032\\255\\000A\\*.");
});

Deno.test("parseQuery accepts a query without a question", () => {
  const query = parseQuery(
    new Uint8Array([
      ...header(0, 0, 0, 1),
      ...opt([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]),
    ]),
  );
  assert.deepEqual([query.question, query.questionEnd, query.edns?.udpSize], [
    undefined,
    12,
    1232,
  ]);
});

Deno.test("parseQuery reads EDNS size, DO bit and options", () => {
  const query = parseQuery(encodeMessage({
    type: "query",
    id: 7,
    questions: [{ type: "A", name: "example.org" }],
    additionals: [{
      type: "OPT",
      name: ".",
      udpPayloadSize: 1232,
      flags: DNSSEC_OK,
      options: [
        { code: 10, data: buffer([1, 2, 3, 4, 5, 6, 7, 8]) },
        { code: 3, data: buffer([]) },
      ],
    }],
  }));
  assert.deepEqual(query.edns, {
    udpSize: 1232,
    version: 0,
    dnssecOk: true,
    extendedRcode: 0,
    options: [
      { code: 10, data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]) },
      { code: 3, data: new Uint8Array([]) },
    ],
  });
});

Deno.test("parseQuery reads the EDNS version and extended rcode", () => {
  const query = parseQuery(
    new Uint8Array([
      ...header(1, 0, 0, 1),
      ...WWW_EXAMPLE,
      ...A_IN,
      ...opt([], [3, 1, 0, 0]),
    ]),
  );
  assert.deepEqual(
    [query.edns?.extendedRcode, query.edns?.version, query.edns?.dnssecOk],
    [3, 1, false],
  );
});

Deno.test("parseQuery copies option data out of the message", () => {
  const bytes = new Uint8Array([
    ...header(1, 0, 0, 1),
    ...WWW_EXAMPLE,
    ...A_IN,
    ...opt([0, 3, 0, 2, 0xaa, 0xbb]),
  ]);
  const query = parseQuery(bytes);
  bytes.fill(0);
  assert.deepEqual(query.edns?.options[0]?.data, new Uint8Array([0xaa, 0xbb]));
});

Deno.test("parseQuery skips answer and authority records to find the OPT", () => {
  const query = parseQuery(encodeMessage({
    type: "query",
    id: 9,
    flags: 4 << 11, // NOTIFY
    questions: [{ type: "SOA", name: "example.org" }],
    answers: [{
      type: "SOA",
      name: "example.org",
      ttl: 3600,
      data: {
        mname: "ns1.example.org",
        rname: "hostmaster.example.org",
        serial: 2024010101,
        refresh: 3600,
        retry: 900,
        expire: 1209600,
        minimum: 300,
      },
    }],
    authorities: [{ type: "NS", name: "example.org", data: "ns1.example.org" }],
    additionals: [
      { type: "A", name: "ns1.example.org", data: "192.0.2.53" },
      { type: "OPT", name: ".", udpPayloadSize: 4096 },
    ],
  }));
  assert.deepEqual([query.opcode, query.ancount, query.edns?.udpSize], [
    4,
    1,
    4096,
  ]);
});

Deno.test("parseQuery follows compression pointers in skipped records", () => {
  // The answer's owner is a pointer to the question name.
  const bytes = new Uint8Array([
    ...header(1, 1, 0, 1),
    ...WWW_EXAMPLE,
    ...A_IN,
    0xc0,
    12,
    ...A_IN,
    0,
    0,
    0,
    60,
    0,
    4,
    192,
    0,
    2,
    1,
    ...opt(),
  ]);
  assert.equal(parseQuery(bytes).edns?.udpSize, 1232);
});

Deno.test("parseQuery ignores octets after the last counted record", () => {
  const valid = [...header(1), ...WWW_EXAMPLE, ...A_IN];
  const query = parseQuery(new Uint8Array([...valid, 0xde, 0xad, 0xbe]));
  assert.deepEqual([query.end, query.question?.name], [
    valid.length,
    "www.example.",
  ]);
});

/** A record whose data holds a chain of `n` pointers, each to the one before. */
function pointerChain(n: number): number[] {
  const rdataStart = 12 + 1 + 4 + 1 + 10; // root question, root owner, fixed
  const chain: number[] = [0xc0, 12];
  for (let i = 1; i < n; i++) {
    const previous = rdataStart + 2 * (i - 1);
    chain.push(0xc0 | (previous >> 8), previous & 0xff);
  }
  const last = rdataStart + 2 * (n - 1);
  return [
    ...header(1, 2),
    0,
    ...A_IN,
    0,
    0,
    16,
    0,
    1,
    0,
    0,
    0,
    0,
    chain.length >> 8,
    chain.length & 0xff,
    ...chain,
    0xc0 | (last >> 8),
    last & 0xff,
    0,
    16,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
  ];
}

Deno.test("parseQuery accepts a short chain of pointers", () => {
  assert.equal(parseQuery(new Uint8Array(pointerChain(100))).ancount, 2);
});

const LONG_LABEL = [63, ...new Array<number>(63).fill(0x61)];

/** A TSIG record: owner `k.`, algorithm `a.`, no MAC; Original ID 0x1234. */
// deno-fmt-ignore
const TSIG = [
  1, 0x6b, 0, 0, 250, 0, 255, 0, 0, 0, 0, 0, 19,
  1, 0x61, 0, 0, 0, 0, 0, 0, 1, 1, 0x2c, 0, 0, 0x12, 0x34, 0, 0, 0, 0,
];

Deno.test("parseQuery notes where the TSIG record is when it comes last", () => {
  const bytes = [
    ...header(1, 0, 0, 2),
    ...WWW_EXAMPLE,
    ...A_IN,
    ...opt(),
    ...TSIG,
  ];
  const query = parseQuery(new Uint8Array(bytes));
  assert.deepEqual(query.tsig, {
    start: bytes.length - TSIG.length,
    end: bytes.length,
  });
  assert.ok(query.edns);
  assert.equal(
    parseQuery(new Uint8Array([...header(1), ...WWW_EXAMPLE, ...A_IN])).tsig,
    undefined,
  );
});

const malformed: { case: string; bytes: number[]; reason: string }[] = [
  {
    case: "TSIG ahead of the OPT record",
    bytes: [...header(1, 0, 0, 2), ...WWW_EXAMPLE, ...A_IN, ...TSIG, ...opt()],
    reason: "TSIG record not the last one",
  },
  {
    case: "TSIG in the answer section",
    bytes: [...header(1, 1), ...WWW_EXAMPLE, ...A_IN, ...TSIG],
    reason: "TSIG record outside the additional section",
  },
  {
    case: "11 octets",
    bytes: header(0).slice(0, 11),
    reason: "message shorter than 12 octets",
  },
  {
    case: "two questions",
    bytes: [...header(2), ...WWW_EXAMPLE, ...A_IN, ...WWW_EXAMPLE, ...A_IN],
    reason: "more than one question",
  },
  {
    case: "question without class",
    bytes: [...header(1), ...WWW_EXAMPLE, 0, 1],
    reason: "question truncated",
  },
  {
    case: "question name cut inside a label",
    bytes: [...header(1), 7, 0x65, 0x78],
    reason: "name truncated",
  },
  {
    case: "question name without its root label",
    bytes: [...header(1), 3, 0x77, 0x77, 0x77],
    reason: "name truncated",
  },
  {
    case: "label length 64",
    bytes: [...header(1), 64, ...new Array<number>(64).fill(0x61), 0, ...A_IN],
    reason: "label longer than 63 octets or of an unsupported type",
  },
  {
    case: "extended label type 0x41",
    bytes: [...header(1), 0x41, 0, 0, ...A_IN],
    reason: "label longer than 63 octets or of an unsupported type",
  },
  {
    case: "name of 321 octets",
    bytes: [
      ...header(1),
      ...[1, 2, 3, 4, 5].flatMap(() => LONG_LABEL),
      0,
      ...A_IN,
    ],
    reason: "name longer than 255 octets",
  },
  {
    case: "pointer to itself",
    bytes: [...header(1), 0xc0, 12, ...A_IN],
    reason: "compression pointer does not point backwards",
  },
  {
    case: "pointer forward",
    bytes: [...header(1), 0xc0, 14, 0, ...A_IN],
    reason: "compression pointer does not point backwards",
  },
  {
    case: "pointer beyond the message",
    bytes: [...header(1), 0xff, 0xff, ...A_IN],
    reason: "compression pointer does not point backwards",
  },
  {
    case: "pointer into the header",
    bytes: [...header(1), 3, 0x77, 0x77, 0x77, 0xc0, 2, ...A_IN],
    reason: "compression pointer into the header",
  },
  {
    case: "OPT record in the answer section",
    bytes: [...header(1, 1), ...WWW_EXAMPLE, ...A_IN, ...opt()],
    reason: "OPT record outside the additional section",
  },
  {
    case: "pointer cut after one octet",
    bytes: [...header(1), 0xc0],
    reason: "name truncated",
  },
  {
    case: "loop through a label after a backward pointer",
    // Answer owner at 29: label "a", then a pointer back to 29, which is
    // before the pointer itself but not before the name it belongs to.
    bytes: [
      ...header(1, 1),
      ...WWW_EXAMPLE,
      ...A_IN,
      1,
      0x61,
      0xc0,
      29,
      ...A_IN,
      0,
      0,
      0,
      0,
      0,
      0,
    ],
    reason: "compression pointer does not point backwards",
  },
  {
    case: "chain of 130 pointers",
    bytes: pointerChain(130),
    reason: "too many compression pointers",
  },
  {
    case: "answer counted but missing",
    bytes: [...header(1, 1), ...WWW_EXAMPLE, ...A_IN],
    reason: "name truncated",
  },
  {
    case: "answer without its fixed fields",
    bytes: [...header(1, 1), ...WWW_EXAMPLE, ...A_IN, 0, 0, 1, 0],
    reason: "record truncated",
  },
  {
    case: "answer data shorter than RDLENGTH",
    bytes: [
      ...header(1, 1),
      ...WWW_EXAMPLE,
      ...A_IN,
      0,
      ...A_IN,
      0,
      0,
      0,
      0,
      0,
      4,
      192,
      0,
    ],
    reason: "record data truncated",
  },
  {
    case: "two OPT records",
    bytes: [...header(1, 0, 0, 2), ...WWW_EXAMPLE, ...A_IN, ...opt(), ...opt()],
    reason: "more than one OPT record",
  },
  {
    case: "OPT owned by a name",
    bytes: [
      ...header(1, 0, 0, 1),
      ...WWW_EXAMPLE,
      ...A_IN,
      0xc0,
      12,
      ...opt().slice(1),
    ],
    reason: "OPT record not at the root",
  },
  {
    case: "EDNS option longer than the OPT data",
    bytes: [
      ...header(1, 0, 0, 1),
      ...WWW_EXAMPLE,
      ...A_IN,
      ...opt([0, 10, 0, 8, 1, 2]),
    ],
    reason: "EDNS option truncated",
  },
  {
    case: "EDNS option header cut",
    bytes: [...header(1, 0, 0, 1), ...WWW_EXAMPLE, ...A_IN, ...opt([0, 10])],
    reason: "EDNS option truncated",
  },
];

Deno.test("parseQuery rejects malformed messages with a reason", async (t) => {
  for (const row of malformed) {
    await t.step(row.case, () => {
      assert.throws(
        () => parseQuery(new Uint8Array(row.bytes)),
        (error: unknown) =>
          error instanceof WireFormatError && error.reason === row.reason,
      );
    });
  }
});

Deno.test("parseQuery throws only WireFormatError on random bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      try {
        parseQuery(bytes);
      } catch (error) {
        if (!(error instanceof WireFormatError)) throw error;
      }
    }),
    { numRuns: 5000 },
  );
});

Deno.test("parseQuery throws only WireFormatError on mutated queries", () => {
  const valid = [
    ...header(1, 1, 0, 1),
    ...WWW_EXAMPLE,
    ...A_IN,
    0xc0,
    12,
    ...A_IN,
    0,
    0,
    0,
    60,
    0,
    4,
    192,
    0,
    2,
    1,
    ...opt([0, 10, 0, 2, 1, 2]),
  ];
  const mutation = fc.array(
    fc.tuple(fc.nat({ max: valid.length - 1 }), fc.nat({ max: 255 })),
    { minLength: 1, maxLength: 4 },
  );
  fc.assert(
    fc.property(mutation, (changes) => {
      const bytes = new Uint8Array(valid);
      for (const [at, value] of changes) bytes[at] = value;
      try {
        parseQuery(bytes);
      } catch (error) {
        if (!(error instanceof WireFormatError)) throw error;
      }
    }),
    { numRuns: 5000 },
  );
});

Deno.test("readName renders names that name.ts decodes to the same octets", () => {
  const label = fc.uint8Array({ minLength: 1, maxLength: 20 });
  fc.assert(
    fc.property(fc.array(label, { minLength: 1, maxLength: 8 }), (labels) => {
      const wire = [...labels.flatMap((l) => [l.length, ...l]), 0];
      const { name, end } = readName(new Uint8Array(wire), 0);
      assert.equal(end, wire.length);
      assert.deepEqual(labelOctets(name, { allowWildcard: true }), labels);
    }),
  );
});

Deno.test("parseQuery writes a leftmost asterisk label bare", () => {
  const wire = [1, 0x2a, 1, 0x2a, ...WWW_EXAMPLE];
  const query = parseQuery(new Uint8Array([...header(1), ...wire, ...A_IN]));
  assert.equal(query.question?.name, "*.\\*.www.example.");
});
