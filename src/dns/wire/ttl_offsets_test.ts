import assert from "node:assert/strict";
import type { RRSet } from "../rrset.ts";
import { RCODE, TYPE } from "./constants.ts";
import { encodeResponse } from "./response.ts";
import { decrementTtls, patchTtls, readTtlOffsets } from "./ttl_offsets.ts";
import { WireFormatError } from "./wire_format_error.ts";

const QUESTION = { name: "www.example.org.", type: TYPE.A, class: 1 };

function a(ttl: number, address: string): RRSet {
  return {
    name: "www.example.org.",
    type: TYPE.A,
    ttl,
    rdata: [{ type: "A", address }],
  };
}

const SOA: RRSet = {
  name: "example.org.",
  type: TYPE.SOA,
  ttl: 3600,
  rdata: [{
    type: "SOA",
    mname: "ns1.example.org.",
    rname: "hostmaster.example.org.",
    serial: 1,
    refresh: 7200,
    retry: 900,
    expire: 1209600,
    minimum: 300,
  }],
};

function u32At(message: Uint8Array, at: number): number {
  return new DataView(message.buffer, message.byteOffset).getUint32(at);
}

Deno.test("readTtlOffsets finds the TTL of every record in every section", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: RCODE.NOERROR,
    question: QUESTION,
    answer: [a(300, "192.0.2.1"), a(60, "192.0.2.2")],
    authority: [SOA],
    additional: [a(120, "192.0.2.3")],
  }, 65535);
  const found = readTtlOffsets(message);
  assert.deepEqual(found.offsets.map((at) => u32At(message, at)), [
    300,
    60,
    3600,
    120,
  ]);
  assert.deepEqual(found.ttls, [300, 60, 3600, 120]);
  assert.equal(found.minTtl, 60);
  assert.equal(found.answerCount, 2);
  assert.equal(found.end, message.length);
});

Deno.test("readTtlOffsets skips the OPT record and reads its extended rcode", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: RCODE.BADVERS,
    question: QUESTION,
    answer: [a(300, "192.0.2.1")],
    edns: { udpSize: 1232, dnssecOk: true },
  }, 65535);
  const found = readTtlOffsets(message);
  assert.deepEqual(found.ttls, [300]);
  assert.equal(found.rcode, RCODE.BADVERS);
  assert.equal(found.optStart, message.length - 11);
});

Deno.test("readTtlOffsets derives the negative TTL from the authority SOA", async (t) => {
  const rows = [
    { soaTtl: 3600, minimum: 300, want: 300 },
    { soaTtl: 60, minimum: 300, want: 60 },
  ];
  for (const row of rows) {
    await t.step(`SOA TTL ${row.soaTtl}, minimum ${row.minimum}`, () => {
      const soa = structuredClone(SOA);
      soa.ttl = row.soaTtl;
      (soa.rdata[0] as { minimum: number }).minimum = row.minimum;
      const message = encodeResponse({
        id: 1,
        opcode: 0,
        rcode: RCODE.NXDOMAIN,
        question: QUESTION,
        authority: [soa],
      }, 65535);
      const found = readTtlOffsets(message);
      assert.equal(found.soaMinimum, row.want);
      assert.equal(found.rcode, RCODE.NXDOMAIN);
      assert.equal(found.answerCount, 0);
    });
  }
});

Deno.test("readTtlOffsets ignores an SOA outside the authority section", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: RCODE.NOERROR,
    question: { name: "example.org.", type: TYPE.SOA, class: 1 },
    answer: [SOA],
  }, 65535);
  assert.equal(readTtlOffsets(message).soaMinimum, undefined);
});

Deno.test("readTtlOffsets throws WireFormatError on malformed input", async (t) => {
  const good = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: QUESTION,
    answer: [a(300, "192.0.2.1")],
  }, 65535);
  const rows: [string, Uint8Array][] = [
    ["shorter than a header", good.slice(0, 5)],
    ["record cut short", good.slice(0, good.length - 2)],
    ["question cut short", good.slice(0, 20)],
    [
      "count larger than the records",
      (() => {
        const m = good.slice();
        m[7] = 2;
        return m;
      })(),
    ],
  ];
  for (const [name, message] of rows) {
    await t.step(name, () => {
      assert.throws(() => readTtlOffsets(message), WireFormatError);
    });
  }
});

Deno.test("readTtlOffsets reads TTLs above 2^31-1 as 0", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: QUESTION,
    answer: [a(300, "192.0.2.1")],
  }, 65535);
  const at = readTtlOffsets(message).offsets[0]!;
  message[at] = 0x80;
  assert.deepEqual(readTtlOffsets(message).ttls, [0]);
});

Deno.test("decrementTtls counts TTLs down and stops at 0", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: QUESTION,
    answer: [a(300, "192.0.2.1"), a(60, "192.0.2.2")],
  }, 65535);
  const { offsets, ttls } = readTtlOffsets(message);
  decrementTtls(message, offsets, ttls, 100);
  assert.deepEqual(offsets.map((at) => u32At(message, at)), [200, 0]);
});

Deno.test("patchTtls writes one TTL into every record", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: QUESTION,
    answer: [a(300, "192.0.2.1"), a(60, "192.0.2.2")],
  }, 65535);
  const { offsets } = readTtlOffsets(message);
  patchTtls(message, offsets, 30);
  assert.deepEqual(offsets.map((at) => u32At(message, at)), [30, 30]);
});
