import assert from "node:assert/strict";
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import {
  asksForPadding,
  padAnswer,
  RESPONSE_BLOCK_OCTETS,
} from "./edns_padding.ts";

function message(opts: {
  padding?: number;
  opt?: boolean;
  tsig?: boolean;
  answers?: number;
}): Uint8Array {
  const additionals: dnsPacket.Answer[] = [];
  if (opts.opt ?? true) {
    additionals.push({
      type: "OPT",
      name: ".",
      udpPayloadSize: 1232,
      flags: 0,
      options: opts.padding === undefined
        ? []
        : [{ code: 12, data: Buffer.alloc(opts.padding) }],
    } as unknown as dnsPacket.Answer);
  }
  if (opts.tsig) {
    additionals.push({
      type: "TXT", // stands for a record after the OPT record
      name: "key.",
      data: ["x"],
    });
  }
  return new Uint8Array(dnsPacket.encode({
    type: "response",
    id: 7,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: "A", name: "www.example.test" }],
    answers: Array.from({ length: opts.answers ?? 1 }, (_, i) => ({
      type: "A" as const,
      name: "www.example.test",
      ttl: 60,
      data: `192.0.2.${i + 1}`,
    })),
    additionals,
  }));
}

Deno.test("asksForPadding sees the Padding option of a query's OPT record", () => {
  assert.equal(asksForPadding(message({ padding: 0 })), true);
  assert.equal(asksForPadding(message({ padding: 100 })), true);
  assert.equal(asksForPadding(message({})), false);
  assert.equal(asksForPadding(message({ opt: false })), false);
  assert.equal(asksForPadding(new Uint8Array(5)), false);
  assert.equal(asksForPadding(message({ padding: 0 }).subarray(0, 40)), false);
});

Deno.test("padAnswer rounds the answer up to a multiple of 468 octets with a Padding option", () => {
  for (const answers of [1, 20, 40]) {
    const answer = message({ answers });
    const padded = padAnswer(answer);
    assert.equal(padded.length % RESPONSE_BLOCK_OCTETS, 0);
    assert.ok(padded.length >= answer.length + 4);
    const decoded = dnsPacket.decode(Buffer.from(padded));
    assert.equal(decoded.answers?.length, answers);
    // dns-packet's OPT options are untyped.
    const opt = decoded.additionals?.find((r: { type: string }) =>
      r.type === "OPT"
    ) as unknown as { options: { code: number; data: Uint8Array }[] };
    const padding = opt.options.find((o) => o.code === 12)!;
    assert.equal(padding.data.length, padded.length - answer.length - 4);
    assert.ok(padding.data.every((b: number) => b === 0));
    assert.deepEqual(padded.subarray(0, 10), answer.subarray(0, 10));
  }
});

Deno.test("padAnswer leaves an answer it cannot pad as it is", () => {
  const noOpt = message({ opt: false });
  assert.equal(padAnswer(noOpt), noOpt);
  const signed = message({ tsig: true });
  assert.equal(padAnswer(signed), signed, "a record after OPT (TSIG)");
  const already = message({ padding: 30 });
  assert.equal(padAnswer(already), already);
  const big = message({ answers: 40 });
  assert.equal(padAnswer(big, big.length + 3), big, "no room under the cap");
  const cut = message({}).subarray(0, 30);
  assert.equal(padAnswer(cut), cut);
});
