import assert from "node:assert/strict";
import type { RecordData } from "../rrset.ts";
import { COMPRESSED } from "./message_writer.ts";
import { writeRdata } from "./rdata_wire.ts";
import { records } from "./testdata/records.ts";
import {
  canonicalRdataKey,
  uncompressedRdataLength,
  UncompressedWriter,
} from "./rdata_canonical.ts";

function rdataOf(line: string): RecordData {
  return records(line)[0]!.rdata[0]!;
}

const SOA: RecordData = {
  type: "SOA",
  mname: "ns1.Example.org.",
  rname: "hostmaster.example.org.",
  serial: 1,
  refresh: 2,
  retry: 3,
  expire: 4,
  minimum: 5,
};

Deno.test("UncompressedWriter writes SOA names whole, case kept", () => {
  const w = new UncompressedWriter();
  writeRdata(w, SOA);
  const text = String.fromCharCode(...w.finish());
  assert.ok(text.startsWith("\x03ns1\x07Example\x03org\x00"));
  assert.ok(text.includes("\x0ahostmaster\x07example\x03org\x00"));
  assert.equal(w.pos, 17 + 24 + 20);
});

Deno.test("UncompressedWriter offers no name for compression", () => {
  const w = new UncompressedWriter();
  w.name("example.org.", COMPRESSED);
  w.name("example.org.", COMPRESSED);
  assert.equal(w.pos, 26);
});

Deno.test("UncompressedWriter with foldCase lowercases letters only", () => {
  const w = new UncompressedWriter();
  w.foldCase = true;
  w.name("A-Z\\091.Example.", COMPRESSED);
  assert.deepEqual(
    [...w.finish()],
    [4, 0x61, 0x2d, 0x7a, 91, 7, ...new TextEncoder().encode("example"), 0],
  );
});

Deno.test("canonicalRdataKey folds the case of names RFC 4034 §6.2 lists", () => {
  const same = (a: string, b: string) =>
    canonicalRdataKey(rdataOf(a)) === canonicalRdataKey(rdataOf(b));
  assert.ok(same("x. 1 IN MX 10 Mail.Example.", "x. 1 IN MX 10 mail.example."));
  assert.ok(same("x. 1 IN NS NS1.example.", "x. 1 IN NS ns1.example."));
  assert.ok(
    same("x. 1 IN SRV 1 2 3 T.example.", "x. 1 IN SRV 1 2 3 t.example."),
  );
  assert.ok(same("x. 1 IN DNAME Y.example.", "x. 1 IN DNAME y.example."));
  assert.ok(
    !same("x. 1 IN HTTPS 1 Svc.example.", "x. 1 IN HTTPS 1 svc.example."),
  );
  assert.ok(!same('x. 1 IN TXT "Hello"', 'x. 1 IN TXT "hello"'));
  assert.ok(!same("x. 1 IN MX 10 a.example.", "x. 1 IN MX 20 a.example."));
  assert.ok(
    same(
      "x. 1 IN HTTPS 1 . port=1 alpn=h2",
      "x. 1 IN HTTPS 1 . alpn=h2 port=1",
    ),
  );
  assert.equal(
    canonicalRdataKey(SOA),
    canonicalRdataKey({ ...SOA, mname: "ns1.example.org." }),
  );
});

Deno.test("uncompressedRdataLength counts names whole", () => {
  assert.equal(uncompressedRdataLength(SOA), 17 + 24 + 20);
  assert.equal(uncompressedRdataLength(rdataOf("x. 1 IN A 192.0.2.1")), 4);
});

Deno.test("canonicalRdataKey holds data longer than one argument list", () => {
  const big: RecordData = {
    type: "unknown",
    code: 65280,
    data: new Uint8Array(20000).fill(7),
  };
  assert.equal(canonicalRdataKey(big).length, 20000);
});
