import assert from "node:assert/strict";
import { decodeResponse } from "../../testing/decode_response.ts";
import { requestFor } from "../../testing/fixtures.ts";
import {
  type BlockDescription,
  blockedAnswer,
  DEFAULT_BLOCK_TTL,
} from "./blocked_answer.ts";

const BLOCK: BlockDescription = {
  mode: "customIP",
  customIPs: [],
  ttl: 60,
  list: "Ads",
  rule: "||ads.example^",
  reason: { infoCode: 15, text: "blocked by Ads" },
};

Deno.test("customIP entries that are not addresses are left out", () => {
  const req = requestFor("ads.example. A");
  const res = blockedAnswer(req, {
    ...BLOCK,
    customIPs: ["not-an-ip", "192.0.2.300", "2001:db8::1", "192.0.2.5"],
  });
  assert.deepEqual(decodeResponse(req, res)!.answer, [
    "ads.example. 60 IN A 192.0.2.5",
  ]);
  const v6 = requestFor("ads.example. AAAA");
  assert.deepEqual(
    decodeResponse(
      v6,
      blockedAnswer(v6, { ...BLOCK, customIPs: ["2001:DB8::01", "::zz"] }),
    )!
      .answer,
    ["ads.example. 60 IN AAAA 2001:db8::1"],
  );
});

Deno.test("a TTL that is not a TTL falls back or is clamped", () => {
  const req = requestFor("ads.example. A");
  const ttlOf = (ttl: number) =>
    blockedAnswer(req, { ...BLOCK, mode: "zeroIP", ttl }).message!.answer![0]!
      .ttl;
  assert.equal(ttlOf(Number.NaN), DEFAULT_BLOCK_TTL);
  assert.equal(ttlOf(-1), DEFAULT_BLOCK_TTL);
  assert.equal(ttlOf(0), 0);
  assert.equal(ttlOf(12.7), 12);
  assert.equal(ttlOf(2 ** 40), 0x7fffffff);
});

Deno.test("an unknown mode answers like zeroIP", () => {
  const req = requestFor("ads.example. A");
  // deno-lint-ignore no-explicit-any
  const res = blockedAnswer(req, { ...BLOCK, mode: "sinkhole" as any });
  assert.deepEqual(decodeResponse(req, res)!.answer, [
    "ads.example. 60 IN A 0.0.0.0",
  ]);
});

Deno.test("the negative answer's SOA: owner the question, MINIMUM and TTL the block TTL", () => {
  const req = requestFor("Www.Ads.example. MX", { edns: { do: true } });
  const res = blockedAnswer(req, { ...BLOCK, mode: "nxdomain", ttl: 42 });
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.rcode, "NXDOMAIN");
  assert.deepEqual(decoded.authority, [
    "Www.Ads.example. 42 IN SOA localhost. blocked.kudurru.invalid. 1 3600 600 86400 42",
  ]);
  assert.equal(decoded.opt?.do, true, "DO echoed as on every answer");
  assert.equal(decoded.aa, false);
});
