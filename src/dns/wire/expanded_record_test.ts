import assert from "node:assert/strict";
import { rrsetsFromText } from "../../testing/zone_text.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { expandedName, expandedRecord } from "./expanded_record.ts";
import { encodeResponse } from "./response.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** A response to `www.example.org. A` whose answer holds `lines`, compressed. */
function message(lines: string[]): Uint8Array {
  return encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: { name: "www.example.org.", type: 1, class: 1 },
    answer: rrsetsFromText(lines),
  }, 65535);
}

/** `record` alone as the answer of a message with no question. */
function alone(record: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + record.length);
  out.set([0, 1, 0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
  out.set(record, 12);
  return out;
}

Deno.test("expandedRecord writes out the owner and the names its type compresses", async (t) => {
  const cases: { line: string; compressed: boolean }[] = [
    {
      line: "www.example.org. 300 IN CNAME web.example.org.",
      compressed: true,
    },
    {
      line: "www.example.org. 300 IN MX 10 mail.example.org.",
      compressed: true,
    },
    {
      line: 'www.example.org. 300 IN NAPTR 100 10 "u" "E2U+sip" "!^.*$!x!" .',
      compressed: false,
    },
    { line: "www.example.org. 300 IN A 192.0.2.1", compressed: false },
  ];
  const question = 12 + 17 + 4; // header, www.example.org., type and class
  for (const { line, compressed } of cases) {
    await t.step(line.split(" ")[3]!, () => {
      const wire = message([line]);
      const { bytes, end } = expandedRecord(wire, question);
      assert.equal(end, wire.length);
      // Standing alone, the copy says what the record said in its message.
      assert.deepEqual(
        decodeAnswer(alone(bytes)).answer,
        decodeAnswer(wire).answer,
      );
      const grown = bytes.length > end - question;
      assert.equal(grown, true, "the owner was a pointer to the question");
      const rdataGrew = bytes.length - 17 > end - question - 2;
      assert.equal(rdataGrew, compressed);
    });
  }
});

Deno.test("expandedName follows pointers and refuses a loop", () => {
  const wire = message(["www.example.org. 300 IN CNAME example.org."]);
  const { wire: name } = expandedName(wire, wire.length - 2); // the target: a pointer
  assert.deepEqual([...name], [
    7,
    ..."example".split("").map((c) => c.charCodeAt(0)),
    3,
    111,
    114,
    103,
    0,
  ]);
  const loop = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 12]);
  assert.throws(() => expandedName(loop, 12), WireFormatError);
});

Deno.test("expandedRecord refuses a record cut short", () => {
  const wire = message(["www.example.org. 300 IN A 192.0.2.1"]);
  assert.throws(
    () => expandedRecord(wire.subarray(0, wire.length - 1), 33),
    WireFormatError,
  );
});
