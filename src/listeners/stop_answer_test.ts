import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { stopAnswer } from "./stop_answer.ts";

function query(edns: boolean): Uint8Array {
  return new Uint8Array(dnsPacket.encode({
    id: 4242,
    type: "query",
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED,
    questions: [{ name: "www.example.org", type: "AAAA", class: "IN" }],
    ...(edns && {
      additionals: [{
        name: ".",
        type: "OPT",
        udpPayloadSize: 4096,
        flags: 0,
        options: [],
      }],
    }),
  }));
}

Deno.test("stopAnswer: SERVFAIL with the query's ID, question, RD and CD", () => {
  const reply = stopAnswer(query(false));
  assert.ok(reply);
  const m = dnsPacket.decode(Buffer.from(reply));
  assert.equal(m.id, 4242);
  assert.equal(m.type, "response");
  assert.equal(m.rcode, "SERVFAIL");
  assert.equal(m.flag_rd, true);
  assert.equal(m.flag_cd, true);
  assert.equal(m.flag_ra, true);
  assert.equal(m.flag_aa, false);
  assert.deepEqual(m.questions, [{
    name: "www.example.org",
    type: "AAAA",
    class: "IN",
  }]);
  assert.equal(m.answers?.length, 0);
  assert.equal(m.additionals?.length, 0);
});

Deno.test("stopAnswer: an OPT record with an Extended DNS Error when the query had EDNS", () => {
  const reply = stopAnswer(query(true));
  assert.ok(reply);
  const m = dnsPacket.decode(Buffer.from(reply));
  assert.equal(m.rcode, "SERVFAIL");
  const opt = m.additionals?.[0] as dnsPacket.OptAnswer | undefined;
  assert.equal(opt?.type, "OPT");
  assert.equal(opt?.udpPayloadSize, 1232);
  const ede = opt?.options?.[0] as { code: number; data: Uint8Array };
  assert.equal(ede.code, 15);
  assert.equal(
    new TextDecoder().decode(ede.data.subarray(2)),
    "server shutting down",
  );
});

Deno.test("stopAnswer: nothing for a response or a message cut short", () => {
  const response = query(false);
  response[2]! |= 0x80;
  assert.equal(stopAnswer(response), undefined);
  assert.equal(stopAnswer(query(false).subarray(0, 15)), undefined);
  assert.equal(stopAnswer(new Uint8Array(5)), undefined);
});
