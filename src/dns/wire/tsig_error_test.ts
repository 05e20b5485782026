import assert from "node:assert/strict";
import { TSIG_ERROR, unsignedTsigError } from "./tsig_error.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Header (ID 0x1234), question `k. A IN`, then a TSIG whose owner points at the question name. */
function signedQuery(rdata: number[]): Uint8Array {
  // deno-fmt-ignore
  return new Uint8Array([
    0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1,
    1, 0x6b, 0, 0, 1, 0, 1,
    0xc0, 12, 0, 250, 0, 255, 0, 0, 0, 0, rdata.length >> 8, rdata.length & 255,
    ...rdata,
  ]);
}

/** Algorithm `a.`, Time Signed 1, Fudge 300, a 2-octet MAC, Original ID 0x1234, Error 0, 1 octet of Other Data. */
// deno-fmt-ignore
const RDATA = [
  1, 0x61, 0, 0, 0, 0, 0, 0, 1, 1, 0x2c, 0, 2, 0xaa, 0xbb, 0x12, 0x34, 0, 0, 0, 1, 0x99,
];
/** The TSIG record starts after the 12-octet header and the 7-octet question. */
const TSIG_START = 19;

function tsigOf(query: Uint8Array) {
  return { start: TSIG_START, end: query.length };
}

Deno.test("unsignedTsigError answers with the key, no MAC and the error", () => {
  const query = signedQuery(RDATA);
  const record = unsignedTsigError(query, tsigOf(query), TSIG_ERROR.BADKEY);
  // deno-fmt-ignore
  assert.deepEqual([...record], [
    1, 0x6b, 0, // the key name, its pointer followed
    0, 250, 0, 255, 0, 0, 0, 0, 0, 19, // TSIG, ANY, TTL 0, RDLENGTH
    1, 0x61, 0, 0, 0, 0, 0, 0, 1, 1, 0x2c, // algorithm, Time Signed, Fudge
    0, 0, // MAC Size 0
    0x12, 0x34, 0, 17, 0, 0, // Original ID, BADKEY, no Other Data
  ]);
});

Deno.test("unsignedTsigError refuses TSIG data that does not add up", () => {
  const cases: Record<string, number[]> = {
    "MAC longer than the record": RDATA.map((b, i) => (i === 12 ? 40 : b)),
    "Other Len past the end": RDATA.map((b, i) => (i === 20 ? 5 : b)),
    "cut after the algorithm": RDATA.slice(0, 6),
    "algorithm name runs off": [9, 0x61],
  };
  for (const [why, rdata] of Object.entries(cases)) {
    const query = signedQuery(rdata);
    assert.throws(
      () => unsignedTsigError(query, tsigOf(query), TSIG_ERROR.BADKEY),
      WireFormatError,
      why,
    );
  }
});
