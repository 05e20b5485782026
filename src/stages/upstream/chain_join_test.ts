import assert from "node:assert/strict";
import { encodeResponse } from "../../dns/wire/response.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { rrsetsFromText } from "../../testing/zone_text.ts";
import { danglingChain, joinedChain } from "./chain_join.ts";

function reply(
  question: string,
  sections: { answer?: string[]; authority?: string[] },
  opts: { rcode?: number; ad?: boolean; aa?: boolean; edns?: boolean } = {},
): Uint8Array {
  return encodeResponse({
    id: 7,
    opcode: 0,
    rcode: opts.rcode ?? 0,
    rd: true,
    ra: true,
    aa: opts.aa ?? false,
    ad: opts.ad ?? false,
    question: { name: question, type: 1, class: 1 },
    answer: rrsetsFromText(sections.answer ?? []),
    authority: rrsetsFromText(sections.authority ?? []),
    ...(opts.edns && { edns: { udpSize: 1232 } }),
  }, 65535);
}

const CHAIN = reply("x.example.", {
  answer: ["x.example. 3600 IN CNAME www.home.test."],
  authority: ["example. 3600 IN SOA ns.example. admin.example. 1 2 3 4 5"],
}, { ad: true });

Deno.test("joinedChain keeps the chain's question and answer, then the target's answer", () => {
  const target = reply("www.home.test.", {
    answer: ["www.home.test. 300 IN A 192.168.1.10"],
  }, { aa: true });
  const joined = decodeAnswer(joinedChain(CHAIN, target));
  assert.deepEqual(joined.question, ["x.example. A IN"]);
  assert.deepEqual(joined.answer, [
    "x.example. 3600 IN CNAME www.home.test.",
    "www.home.test. 300 IN A 192.168.1.10",
  ]);
  assert.deepEqual(
    joined.authority,
    [],
    "the chain's authority is not the target's",
  );
  assert.equal(joined.rcode, "NOERROR");
  assert.equal(joined.aa, false, "two sources: not authoritative");
  assert.equal(joined.id, 7);
});

Deno.test("joinedChain takes the target's RCODE, authority and OPT", () => {
  const target = reply("nope.home.test.", {
    authority: [
      "home.test. 300 IN SOA ns.home.test. admin.home.test. 5 2 3 4 300",
    ],
  }, { rcode: 3, edns: true });
  const joined = decodeAnswer(joinedChain(CHAIN, target));
  assert.equal(joined.rcode, "NXDOMAIN");
  assert.deepEqual(joined.answer, ["x.example. 3600 IN CNAME www.home.test."]);
  assert.equal(joined.authority.length, 1);
  assert.match(joined.authority[0]!, /^home\.test\. 300 IN SOA /);
  assert.ok(joined.opt !== undefined, "the target's OPT is carried");
});

Deno.test("joinedChain refuses a joined answer over 65535 octets", () => {
  // 240 records of ~263 octets fit in one message while their owners are
  // pointers; written out whole (13 octets more each) they do not.
  const big = reply("www.home.test.", {
    answer: Array.from(
      { length: 240 },
      (_, i) => `www.home.test. 300 IN TXT "${"x".repeat(246)}${1000 + i}"`,
    ),
  });
  assert.equal(decodeAnswer(big).answer.length, 240, "the target fits alone");
  assert.throws(() => joinedChain(CHAIN, big), WireFormatError);
});

Deno.test("danglingChain answers NOERROR without AD when the target cannot be asked", () => {
  const cut = reply("x.example.", {
    answer: ["x.example. 3600 IN CNAME www.home.test."],
  }, { rcode: 3, ad: true });
  const wire = danglingChain(cut);
  const decoded = decodeAnswer(wire);
  assert.equal(decoded.rcode, "NOERROR");
  assert.equal(wire[3]! & 0x20, 0, "AD clear");
  assert.deepEqual(decoded.answer, ["x.example. 3600 IN CNAME www.home.test."]);
});
