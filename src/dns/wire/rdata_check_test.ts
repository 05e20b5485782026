import assert from "node:assert/strict";
import { RCODE, TYPE } from "./constants.ts";
import { parseQuery } from "./query.ts";
import { checkRecordData } from "./rdata_check.ts";
import { encodeResponse } from "./response.ts";

/** The question "example.org. A IN" ends here; its name is at offset 12. */
const QUESTION_END = 29;
const QNAME = 0xc00c;

function wireName(name: string): number[] {
  const out: number[] = [];
  for (const label of name.split(".").filter((l) => l !== "")) {
    out.push(label.length, ...new TextEncoder().encode(label));
  }
  return [...out, 0];
}

function u16(n: number): number[] {
  return [n >> 8, n & 0xff];
}

/** One record owned by the question name (a pointer to it). */
function record(type: number, rdata: number[], rrClass = 1): number[] {
  return [...u16(QNAME), ...u16(type), ...u16(rrClass), 0, 0, 0, 60]
    .concat(u16(rdata.length), rdata);
}

/** A response to "example.org. A" with `records` in its answer section. */
function response(...records: number[][]): Uint8Array {
  const header = [0, 1, 0x81, 0x80, 0, 1, ...u16(records.length), 0, 0, 0, 0];
  const question = [...wireName("example.org."), 0, 1, 0, 1];
  return Uint8Array.from([...header, ...question, ...records.flat()]);
}

function check(message: Uint8Array): void {
  checkRecordData(message, QUESTION_END, (message[6]! << 8) | message[7]!);
}

/** RDATA offset of the first record of a `response` (owner pointer + fixed part). */
const FIRST_RDATA = QUESTION_END + 2 + 10;

const SOA_NUMBERS = Array(20).fill(1);

Deno.test("checkRecordData accepts what our encoder writes, compressed names included", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: RCODE.NOERROR,
    question: { name: "example.org.", type: TYPE.MX, class: 1 },
    answer: [
      {
        name: "example.org.",
        type: TYPE.MX,
        ttl: 60,
        rdata: [{ type: "MX", preference: 10, exchange: "mail.example.org." }],
      },
      {
        name: "example.org.",
        type: TYPE.SRV,
        ttl: 60,
        rdata: [{
          type: "SRV",
          priority: 1,
          weight: 2,
          port: 3,
          target: "sip.example.org.",
        }],
      },
      {
        name: "example.org.",
        type: TYPE.TXT,
        ttl: 60,
        rdata: [{
          type: "TXT",
          strings: [new Uint8Array(3), new Uint8Array()],
        }],
      },
      {
        name: "example.org.",
        type: TYPE.HTTPS,
        ttl: 60,
        rdata: [{
          type: "HTTPS",
          priority: 1,
          target: "svc.example.org.",
          params: [{ key: "alpn", ids: [new TextEncoder().encode("h2")] }],
        }],
      },
    ],
    authority: [{
      name: "example.org.",
      type: TYPE.SOA,
      ttl: 60,
      rdata: [{
        type: "SOA",
        mname: "ns.example.org.",
        rname: "hostmaster.example.org.",
        serial: 1,
        refresh: 2,
        retry: 3,
        expire: 4,
        minimum: 5,
      }],
    }],
    additional: [{
      name: "mail.example.org.",
      type: TYPE.AAAA,
      ttl: 60,
      rdata: [{ type: "AAAA", address: "2001:db8::1" }],
    }],
  }, 65535);
  const info = parseQuery(message);
  checkRecordData(
    message,
    info.questionEnd,
    info.ancount + info.nscount + info.arcount,
  );
});

Deno.test("checkRecordData accepts sound data it has no rule against", async (t) => {
  const cases: [string, number[]][] = [
    ["an MX pointing back at the question", record(15, [0, 10, ...u16(QNAME)])],
    ["a CH A record (name and address)", record(1, [0, 0, 1], 3)],
    ["a type it does not know", record(999, [0xc0, 0xff, 0xff])],
    [
      "a signature after the RRSIG signer",
      record(46, [...Array(18).fill(0), 0, 7]),
    ],
  ];
  for (const [name, rr] of cases) {
    await t.step(name, () => check(response(rr)));
  }
});

Deno.test("checkRecordData refuses malformed record data", async (t) => {
  const cases: [string, number[], RegExp][] = [
    [
      "an MX exchange pointing past the message",
      record(15, [0, 10, ...u16(0xfff0)]),
      /MX record data: compression pointer does not point backwards/,
    ],
    [
      "an NS target pointing at itself",
      record(2, u16(0xc000 | FIRST_RDATA)),
      /NS record data: compression pointer does not point backwards/,
    ],
    [
      "an SOA missing a number octet",
      record(6, [0, 0, ...SOA_NUMBERS.slice(1)]),
      /SOA record data: 19 octets after the names, not 20/,
    ],
    [
      "an SOA MNAME pointing forward",
      record(6, [...u16(0xf000), 0, ...SOA_NUMBERS]),
      /SOA record data: compression pointer/,
    ],
    [
      "an A of 5 octets",
      record(1, [192, 0, 2, 1, 7]),
      /A record data: 5 octets, not 4/,
    ],
    ["an AAAA of 15 octets", record(28, Array(15).fill(0)), /AAAA record data/],
    [
      "a CNAME with an octet after its name",
      record(5, [...wireName("t.example."), 9]),
      /CNAME record data: 1 octets after the names, not 0/,
    ],
    [
      "a CNAME whose name runs into the next record",
      record(5, [1, 0x61]),
      /CNAME record data: name runs past the record data/,
    ],
    ["an MX of one octet", record(15, [0]), /MX record data: too short/],
    [
      "an SRV target cut short",
      record(33, [0, 1, 0, 2, 0, 3, 3, 0x61]),
      /SRV record data/,
    ],
    [
      "a NAPTR string running past the data",
      record(35, [0, 1, 0, 2, 1, 0x53, 0, 40, 0]),
      /NAPTR record data: too short/,
    ],
    [
      "an HTTPS target compressed",
      record(65, [0, 1, ...u16(QNAME)]),
      /HTTPS record data: name malformed or compressed/,
    ],
    [
      "an HTTPS param running past the data",
      record(65, [0, 1, 0, 0, 1, 0, 9, 0x68]),
      /HTTPS record data: params malformed/,
    ],
    [
      "an RRSIG signer compressed",
      record(46, [...Array(18).fill(0), ...u16(QNAME)]),
      /RRSIG record data: name malformed or compressed/,
    ],
    [
      "an NSAP-PTR name compressed",
      record(23, u16(QNAME)),
      /TYPE23 record data: name malformed or compressed/,
    ],
    [
      "a record of the reserved type 0",
      record(0, [1, 2]),
      /TYPE0 record data: reserved type/,
    ],
    [
      "a TXT string running past the data",
      record(16, [5, 0x61]),
      /TXT record data: character-string past its end/,
    ],
  ];
  for (const [name, rr, why] of cases) {
    await t.step(name, () => {
      // A sound record after the bad one: the bad one must still be found.
      const message = response(rr, record(1, [192, 0, 2, 1]));
      assert.throws(() => check(message), why);
    });
  }
});

Deno.test("checkRecordData checks every section's records", () => {
  const message = response(
    record(1, [192, 0, 2, 1]),
    record(2, wireName("ns.example.")),
    record(15, [0, 10, ...u16(0xfff0)]),
  );
  message[7] = 1; // one answer, one authority, one additional record
  message[9] = 1;
  message[11] = 1;
  assert.throws(
    () => checkRecordData(message, QUESTION_END, 3),
    /MX record data/,
  );
});

Deno.test("checkRecordData refuses records cut short", () => {
  const message = response(record(1, [192, 0, 2, 1]));
  assert.throws(
    () =>
      checkRecordData(message.subarray(0, message.length - 1), QUESTION_END, 1),
    /record truncated/,
  );
});
