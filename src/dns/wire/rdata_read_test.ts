import assert from "node:assert/strict";
import type { RecordData } from "../rrset.ts";
import { TYPE } from "./constants.ts";
import { writeRdata } from "./rdata_wire.ts";
import { readRdata } from "./rdata_read.ts";
import { records } from "./testdata/records.ts";
import { UncompressedWriter } from "./rdata_canonical.ts";
import { WireFormatError } from "./wire_format_error.ts";

const SHA256 = "a".repeat(64);

/** One record of every shape, as presentation lines. */
const LINES = [
  "x.example. 300 IN A 192.0.2.1",
  "x.example. 300 IN AAAA 2001:db8::1",
  "x.example. 300 IN NS Ns1.Example.",
  "x.example. 300 IN CNAME y.example.",
  "x.example. 300 IN DNAME y.example.",
  "x.example. 300 IN PTR y.example.",
  "x.example. 300 IN MX 10 Mail.example.",
  "_sip._tcp.example. 300 IN SRV 10 60 5060 sip.example.",
  'x.example. 300 IN NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:a@example!" .',
  `_443._tcp.x.example. 300 IN TLSA 3 1 1 ${SHA256}`,
  `x.example. 300 IN SSHFP 4 2 ${SHA256}`,
  'x.example. 300 IN CAA 128 issue "ca.example"',
  'x.example. 300 IN TXT "v=spf1 -all" "Second"',
  'x.example. 300 IN TXT ""',
  "x.example. 300 IN SVCB 0 Alias.example.",
  'x.example. 300 IN HTTPS 1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1 ech=AEX+DQBB ipv6hint=2001:db8::1 mandatory=port,alpn dohpath=/q{?dns} key65000="x"',
  "x.example. 300 IN TYPE65280 \\# 3 abcdef",
  "a\\.b.example. 300 IN CNAME \\042.x\\032y.example.",
];

const SOA: RecordData = {
  type: "SOA",
  mname: "ns1.example.org.",
  rname: "hostmaster.example.org.",
  serial: 4294967295,
  refresh: 3600,
  retry: 900,
  expire: 1209600,
  minimum: 300,
};

const w = new UncompressedWriter();

function wire(rdata: RecordData): Uint8Array {
  w.reset();
  writeRdata(w, rdata);
  return w.finish();
}

Deno.test("readRdata gives back what writeRdata wrote, for every shape", async (t) => {
  const all = [
    ...LINES.map((line) => {
      const [rrset] = records(line);
      return { line, type: rrset!.type, rdata: rrset!.rdata[0]! };
    }),
    { line: "SOA", type: TYPE.SOA, rdata: SOA },
  ];
  for (const { line, type, rdata } of all) {
    await t.step(line, () => {
      const bytes = wire(rdata);
      const read = readRdata(type, bytes);
      assert.deepEqual(wire(read), bytes);
      // Those two are spelt another way (param order, escapes).
      if (!line.includes("HTTPS") && !line.includes("\\042")) {
        assert.deepEqual(read, rdata);
      }
    });
  }
});

Deno.test("readRdata keeps the case of names and spells escapes as readName does", () => {
  const [ns, cname] = records(
    "x.example. 300 IN NS Ns1.Example.",
    "x.example. 300 IN CNAME \\042.x\\032y.example.",
  );
  assert.deepEqual(readRdata(TYPE.NS, wire(ns!.rdata[0]!)), {
    type: "NS",
    target: "Ns1.Example.",
  });
  assert.deepEqual(readRdata(TYPE.CNAME, wire(cname!.rdata[0]!)), {
    type: "CNAME",
    target: "*.x\\032y.example.",
  });
});

Deno.test("readRdata reads SVCB params in key order, dohpath by name", () => {
  const [https] = records(
    "x.example. 300 IN HTTPS 1 . port=8443 alpn=h2 dohpath=/q{?dns}",
  );
  const read = readRdata(TYPE.HTTPS, wire(https!.rdata[0]!));
  assert.deepEqual(read.type === "HTTPS" && read.params.map((p) => p.key), [
    "alpn",
    "port",
    "dohpath",
  ]);
});

Deno.test("readRdata reads a slice of a larger buffer", () => {
  const data = wire({ type: "MX", preference: 5, exchange: "mx.example." });
  const padded = new Uint8Array(data.length + 6);
  padded.set(data, 3);
  assert.deepEqual(readRdata(TYPE.MX, padded, 3, 3 + data.length), {
    type: "MX",
    preference: 5,
    exchange: "mx.example.",
  });
});

Deno.test("readRdata refuses data that is not of its type", () => {
  const mx = wire({ type: "MX", preference: 5, exchange: "mx.example." });
  const bad: [string, number, Uint8Array][] = [
    ["A of 3 octets", TYPE.A, new Uint8Array([1, 2, 3])],
    ["AAAA of 4 octets", TYPE.AAAA, new Uint8Array(4)],
    ["MX cut short", TYPE.MX, mx.subarray(0, mx.length - 1)],
    ["MX with an octet after it", TYPE.MX, new Uint8Array([...mx, 0])],
    ["a compression pointer", TYPE.NS, new Uint8Array([0xc0, 0x0c])],
    ["TXT without strings", TYPE.TXT, new Uint8Array(0)],
    ["TXT string running off", TYPE.TXT, new Uint8Array([5, 0x61])],
    [
      "SVCB port of 3 octets",
      TYPE.SVCB,
      new Uint8Array([0, 1, 0, 0, 3, 0, 3, 1, 2, 3]),
    ],
    ["SOA without its numbers", TYPE.SOA, new Uint8Array([0, 0, 0, 0, 0, 1])],
  ];
  for (const [what, type, bytes] of bad) {
    assert.throws(() => readRdata(type, bytes), WireFormatError, what);
  }
});

Deno.test("readRdata gives types without a shape here as unknown", () => {
  assert.deepEqual(readRdata(43, new Uint8Array([1, 2, 3])), {
    type: "unknown",
    code: 43,
    data: new Uint8Array([1, 2, 3]),
  });
});
