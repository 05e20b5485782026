import assert from "node:assert/strict";
import dnsPacket from "dns-packet";
import { answerMaxAge, cacheControl } from "./cache_control.ts";

const QUESTION = [{ type: "A", name: "a.test", class: "IN" }] as const;

function message(
  sections: Partial<
    Pick<dnsPacket.Packet, "answers" | "authorities" | "additionals">
  >,
  rcode = "NOERROR",
): Uint8Array {
  return new Uint8Array(dnsPacket.encode({
    type: "response",
    id: 0,
    flags: rcode === "NXDOMAIN" ? 3 : 0,
    questions: [...QUESTION],
    ...sections,
  }));
}

const a = (ttl: number): dnsPacket.Answer => ({
  type: "A",
  name: "a.test",
  ttl,
  data: "192.0.2.1",
});

const soa = (ttl: number, minimum: number): dnsPacket.Answer => ({
  type: "SOA",
  name: "test",
  ttl,
  data: {
    mname: "ns.test",
    rname: "hostmaster.test",
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum,
  },
});

/** OPT with extended RCODE, version and flags 0: a "TTL" field of 0. */
const OPT: dnsPacket.Answer = {
  type: "OPT",
  name: ".",
  udpPayloadSize: 1232,
  flags: 0,
} as unknown as dnsPacket.Answer;

Deno.test("answerMaxAge is the smallest TTL over answer, authority and additional", () => {
  assert.equal(answerMaxAge(message({ answers: [a(300), a(60), a(900)] })), 60);
  assert.equal(
    answerMaxAge(message({
      answers: [a(300)],
      authorities: [{ type: "NS", name: "test", ttl: 120, data: "ns.test" }],
      additionals: [{
        type: "A",
        name: "ns.test",
        ttl: 30,
        data: "192.0.2.53",
      }],
    })),
    30,
  );
  assert.equal(cacheControl(message({ answers: [a(60)] })), "max-age=60");
});

Deno.test("answerMaxAge skips the OPT record, whose TTL field holds EDNS flags", () => {
  assert.equal(
    answerMaxAge(message({ answers: [a(300)], additionals: [OPT] })),
    300,
  );
});

Deno.test("answerMaxAge of a negative answer: min(SOA TTL, SOA MINIMUM), RFC 2308 §5", () => {
  assert.equal(
    answerMaxAge(message({ authorities: [soa(3600, 300)] }, "NXDOMAIN")),
    300,
  );
  assert.equal(answerMaxAge(message({ authorities: [soa(60, 300)] })), 60);
  // A CNAME to a name that does not exist: the CNAME's TTL counts too.
  assert.equal(
    answerMaxAge(message({
      answers: [{ type: "CNAME", name: "a.test", ttl: 20, data: "b.test" }],
      authorities: [soa(3600, 300)],
    }, "NXDOMAIN")),
    20,
  );
});

Deno.test("answerMaxAge is 0 without records, and for what cannot be read", () => {
  assert.equal(answerMaxAge(message({})), 0);
  assert.equal(answerMaxAge(message({ additionals: [OPT] })), 0);
  assert.equal(cacheControl(message({})), "max-age=0");
  const whole = message({ answers: [a(300)] });
  for (let cut = 0; cut < whole.length; cut++) {
    assert.equal(answerMaxAge(whole.subarray(0, cut)), 0, `cut at ${cut}`);
  }
});

Deno.test("answerMaxAge follows owner names written as compression pointers", () => {
  // one.test A, answer owner 0xc00c (the question's name), TTL 60.
  const bytes = new Uint8Array([
    0,
    0,
    0x81,
    0x80,
    0,
    1,
    0,
    1,
    0,
    0,
    0,
    0,
    3,
    111,
    110,
    101,
    4,
    116,
    101,
    115,
    116,
    0,
    0,
    1,
    0,
    1,
    0xc0,
    12,
    0,
    1,
    0,
    1,
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
  ]);
  assert.equal(answerMaxAge(bytes), 60);
});

Deno.test("answerMaxAge takes a TTL with the top bit set as 0 (RFC 2181 §8)", () => {
  const bytes = message({ answers: [a(300)] });
  // The answer's TTL: after header (12), question (a.test: 8 + 4), owner
  // (8), type and class (4).
  const ttlAt = 12 + 12 + 8 + 4;
  assert.deepEqual([...bytes.subarray(ttlAt, ttlAt + 4)], [0, 0, 1, 44]);
  bytes.set([0x80, 0, 0, 0], ttlAt);
  assert.equal(answerMaxAge(bytes), 0);
});
