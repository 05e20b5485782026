import assert from "node:assert/strict";
import { decodeResponse } from "../../src/testing/dns_client.ts";
import { framed, syntheticAxfr, syntheticMessage } from "./synthetic.ts";
import {
  countTypes,
  FrameSplitter,
  transferQuery,
  TransferReader,
} from "./xfr_client.ts";

const ZONE = "transfer.test.";
const soa = (serial: number) => ({ name: ZONE, type: "SOA" as const, serial });
const a = (n: number) => ({
  name: `h${n}.${ZONE}`,
  type: "A" as const,
  address: `10.0.0.${n}`,
});

Deno.test("the frame splitter finds every message whatever the chunks", () => {
  const messages = syntheticAxfr(ZONE, 7, 300, 40);
  const stream = framed(messages);
  for (const size of [1, 2, 3, 7, 100, 4096, stream.length]) {
    const splitter = new FrameSplitter();
    const got: Uint8Array[] = [];
    for (let at = 0; at < stream.length; at += size) {
      for (const m of splitter.push(stream.slice(at, at + size))) {
        got.push(m.slice());
      }
    }
    assert.equal(splitter.pendingOctets, 0, `chunks of ${size}`);
    assert.deepEqual(got, messages, `chunks of ${size}`);
  }
});

Deno.test("an AXFR ends at the second SOA and counts every record and octet", () => {
  const messages = syntheticAxfr(ZONE, 7, 1000, 300);
  const reader = new TransferReader("AXFR");
  messages.forEach((m, i) => {
    assert.equal(reader.done, false, `done before message ${i + 1}`);
    reader.add(m);
  });
  assert.equal(reader.done, true);
  assert.deepEqual(reader.tally, {
    messages: 4,
    messageOctets: messages.reduce((n, m) => n + m.length, 0),
    wireOctets: messages.reduce((n, m) => n + 2 + m.length, 0),
    records: 1002,
    serial: 7,
    form: "axfr",
  });
  assert.equal(countTypes(messages), "2 SOA, 1000 A");
});

Deno.test("an IXFR ends at the current SOA that would open a removal, not at the last addition's SOA", () => {
  // RFC 1995 §4: 9; 7, -h1, 8, +h1; 8, -h2, 9, +h2; 9.
  const reader = new TransferReader("IXFR", 7);
  reader.add(syntheticMessage([soa(9), soa(7), a(1), soa(8), a(1)]));
  reader.add(syntheticMessage([soa(8), a(2), soa(9), a(2)]));
  assert.equal(reader.done, false);
  reader.add(syntheticMessage([soa(9)]));
  assert.equal(reader.done, true);
  assert.equal(reader.tally.form, "ixfr");
  assert.equal(reader.tally.records, 10);
  // Empty sections: the new SOA right after the old one.
  const empty = new TransferReader("IXFR", 8);
  empty.add(syntheticMessage([soa(9), soa(8), soa(9), soa(9)]));
  assert.equal(empty.done, true);
});

Deno.test("an IXFR answered in AXFR form, or with the SOA alone", () => {
  const full = new TransferReader("IXFR", 7);
  full.add(syntheticMessage([soa(9), a(1), a(2), soa(9)]));
  assert.equal(full.done, true);
  assert.equal(full.tally.form, "axfr");
  const current = new TransferReader("IXFR", 9);
  current.add(syntheticMessage([soa(9)]));
  assert.equal(current.done, true);
  assert.equal(current.tally.form, "soa");
});

Deno.test("errors: an rcode, no SOA first, records after the end", () => {
  assert.throws(
    () => new TransferReader("AXFR").add(syntheticMessage([], { rcode: 5 })),
    /rcode 5/,
  );
  assert.throws(
    () => new TransferReader("AXFR").add(syntheticMessage([a(1)])),
    /does not open with an SOA/,
  );
  assert.throws(
    () =>
      new TransferReader("AXFR").add(syntheticMessage([soa(1), soa(1), a(1)])),
    /after the closing SOA/,
  );
  const done = new TransferReader("AXFR");
  done.add(syntheticMessage([soa(1), soa(1)]));
  assert.throws(() => done.add(syntheticMessage([a(1)])), /after the closing/);
});

Deno.test("the IXFR query carries the client's serial in an authority SOA", () => {
  const q = decodeResponse(transferQuery(ZONE, "IXFR", 99, 2026120201));
  assert.equal(q.id, 99);
  assert.deepEqual(q.questions, [{
    name: "transfer.test",
    type: "IXFR",
    class: "IN",
  }]);
  assert.equal(q.authorities.length, 1);
  assert.equal(q.authorities[0]!.type, "SOA");
  assert.equal(q.authorities[0]!.data.serial, 2026120201);
  const axfr = decodeResponse(transferQuery(ZONE, "AXFR", 1));
  assert.equal(axfr.questions[0]!.type, "AXFR");
  assert.equal(axfr.authorities.length, 0);
});
