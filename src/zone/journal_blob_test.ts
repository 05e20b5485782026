import assert from "node:assert/strict";
import type { RRSet } from "../dns/rrset.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import {
  rrsetsFromText,
  sectionText,
  zoneFromText,
} from "../testing/zone_text.ts";
import { decodeDiff, encodeDiff } from "./journal_blob.ts";
import { diffZones, type ZoneDiff } from "./zone_diff.ts";

const SOA = (serial: number) =>
  `example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 3600 900 1209600 300`;

/** A diff holding one record of every shape, names in mixed case. */
function everyShape(): ZoneDiff {
  const before = zoneFromText("example.org.", [
    SOA(1),
    "old.example.org. 60 IN A 192.0.2.1",
    "old.example.org. 60 IN A 192.0.2.2",
  ]);
  const after = zoneFromText("example.org.", [
    SOA(4294967295),
    "x.example.org. 300 IN AAAA 2001:db8::1",
    "x.example.org. 300 IN NS Ns1.Example.",
    "c.example.org. 300 IN CNAME y.example.",
    "d.example.org. 300 IN DNAME y.example.",
    "p.example.org. 300 IN PTR y.example.",
    "x.example.org. 300 IN MX 10 Mail.example.",
    "_sip._tcp.example.org. 300 IN SRV 10 60 5060 sip.example.",
    'x.example.org. 300 IN NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:a@example!" .',
    `_443._tcp.x.example.org. 300 IN TLSA 3 1 1 ${"ab".repeat(32)}`,
    `x.example.org. 300 IN SSHFP 4 2 ${"cd".repeat(32)}`,
    'x.example.org. 300 IN CAA 128 issue "ca.example"',
    'x.example.org. 300 IN TXT "v=spf1 -all" "Second"',
    "x.example.org. 300 IN SVCB 0 Alias.example.",
    "x.example.org. 300 IN HTTPS 1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1 ipv6hint=2001:db8::1",
    "*.example.org. 300 IN TYPE65280 \\# 3 abcdef",
  ]);
  return diffZones(before, after);
}

/** The answer bytes of RRsets: what a transfer would send. */
function wire(rrsets: RRSet[]): Uint8Array {
  return encodeResponse({ id: 1, opcode: 0, rcode: 0, answer: rrsets }, 65535);
}

Deno.test("decodeDiff gives back the difference encodeDiff stored", () => {
  const diff = everyShape();
  const read = decodeDiff(encodeDiff(diff));
  assert.equal(read.fromSerial, 1);
  assert.equal(read.toSerial, 4294967295);
  assert.deepEqual(read.fromSoa, diff.fromSoa);
  assert.deepEqual(read.toSoa, diff.toSoa);
  assert.deepEqual(sectionText(read.removed), sectionText(diff.removed));
  assert.deepEqual(sectionText(read.added), sectionText(diff.added));
  // What goes out on the wire is the same octets, case included.
  assert.deepEqual(wire(read.added), wire(diff.added));
  assert.deepEqual(wire(read.removed), wire(diff.removed));
  assert.deepEqual(read.removed.map((r) => r.name), ["old.example.org."]);
});

Deno.test("encodeDiff keeps the class when it is not IN", () => {
  const diff = everyShape();
  const [chaos] = rrsetsFromText(['x.example.org. 300 IN TXT "ch"']);
  diff.added = [{ ...chaos!, class: 3 }];
  assert.equal(decodeDiff(encodeDiff(diff)).added[0]!.class, 3);
  assert.ok(!("class" in decodeDiff(encodeDiff(everyShape())).added[0]!));
});

Deno.test("decodeDiff refuses damaged blobs with a WireFormatError", () => {
  const blob = encodeDiff(everyShape());
  const damaged: [string, Uint8Array][] = [
    ["empty", new Uint8Array(0)],
    ["another format", new TextEncoder().encode('{"json":1}')],
    ["cut short", blob.subarray(0, blob.length - 3)],
    ["an octet more", new Uint8Array([...blob, 0])],
    ["a newer version", Uint8Array.of(0x4b, 0x4a, 2, ...blob.subarray(3))],
  ];
  // Each octet set to 0xff in turn: a decode error or a diff, never another throw.
  for (let i = 3; i < blob.length; i++) {
    const copy = blob.slice();
    copy[i] = 0xff;
    damaged.push([`octet ${i}`, copy]);
  }
  for (const [what, bytes] of damaged.slice(0, 5)) {
    assert.throws(() => decodeDiff(bytes), WireFormatError, what);
  }
  for (const [what, bytes] of damaged.slice(5)) {
    try {
      decodeDiff(bytes);
    } catch (error) {
      assert.ok(error instanceof WireFormatError, `${what}: ${error}`);
    }
  }
});
