import assert from "node:assert/strict";
import type { RRSet } from "../rrset.ts";
import { TYPE } from "./constants.ts";
import { encodeResponse } from "./response.ts";
import {
  buffer,
  type DecodedRecord,
  decodeMessage,
} from "./testdata/dns_packet.ts";
import { records } from "./testdata/records.ts";

/** Encodes the RRsets as an answer and decodes its first record. */
function roundTrip(rrsets: RRSet[]): DecodedRecord {
  const message = encodeResponse(
    { id: 1, opcode: 0, rcode: 0, answer: rrsets },
    65535,
  );
  return decodeMessage(message).answers[0]!;
}

const SHA256 = "a".repeat(64);

const cases: { record: string; data: unknown }[] = [
  { record: "x.example. 300 IN A 192.0.2.1", data: "192.0.2.1" },
  { record: "x.example. 300 IN AAAA 2001:db8::1", data: "2001:db8::1" },
  { record: "x.example. 300 IN NS ns1.example.", data: "ns1.example" },
  { record: "x.example. 300 IN CNAME y.example.", data: "y.example" },
  { record: "x.example. 300 IN DNAME y.example.", data: "y.example" },
  { record: "x.example. 300 IN PTR y.example.", data: "y.example" },
  {
    record: "x.example. 300 IN MX 10 mail.example.",
    data: { preference: 10, exchange: "mail.example" },
  },
  {
    record: "_sip._tcp.example. 300 IN SRV 10 60 5060 sip.example.",
    data: { priority: 10, weight: 60, port: 5060, target: "sip.example" },
  },
  {
    record:
      'x.example. 300 IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.example.',
    data: {
      order: 100,
      preference: 10,
      flags: "S",
      services: "SIP+D2U",
      regexp: "",
      replacement: "_sip._udp.example",
    },
  },
  {
    record:
      'x.example. 300 IN NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:a@example!" .',
    data: {
      order: 100,
      preference: 10,
      flags: "U",
      services: "E2U+sip",
      regexp: "!^.*$!sip:a@example!",
      replacement: ".",
    },
  },
  {
    record: `_443._tcp.x.example. 300 IN TLSA 3 1 1 ${SHA256}`,
    data: {
      usage: 3,
      selector: 1,
      matchingType: 1,
      certificate: buffer(new Uint8Array(32).fill(0xaa)),
    },
  },
  {
    record: `x.example. 300 IN SSHFP 4 2 ${SHA256}`,
    data: { algorithm: 4, hash: 2, fingerprint: SHA256.toUpperCase() },
  },
  {
    record: 'x.example. 300 IN CAA 128 issue "ca.example"',
    data: {
      flags: 128,
      tag: "issue",
      value: "ca.example",
      issuerCritical: true,
    },
  },
  {
    record: 'x.example. 300 IN TXT "v=spf1 -all" "second"',
    data: [buffer(ascii("v=spf1 -all")), buffer(ascii("second"))],
  },
  {
    record: "x.example. 300 IN TYPE65280 \\# 3 abcdef",
    data: buffer([0xab, 0xcd, 0xef]),
  },
];

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

Deno.test("encodeResponse writes every record type dns-packet can read", async (t) => {
  for (const row of cases) {
    await t.step(row.record, () => {
      const decoded = roundTrip(records(row.record));
      assert.deepEqual(decoded.data, row.data);
    });
  }
});

Deno.test("encodeResponse writes owner, type, class and TTL", () => {
  const decoded = roundTrip(records('x.example. 3600 CH TXT "hi"'));
  assert.deepEqual(
    [decoded.name, decoded.type, decoded.class, decoded.ttl],
    ["x.example", "TXT", "CH", 3600],
  );
});

Deno.test("encodeResponse writes SOA data", () => {
  const soa: RRSet = {
    name: "example.org.",
    type: TYPE.SOA,
    ttl: 3600,
    rdata: [{
      type: "SOA",
      mname: "ns1.example.org.",
      rname: "hostmaster.example.org.",
      serial: 4294967295,
      refresh: 3600,
      retry: 900,
      expire: 1209600,
      minimum: 300,
    }],
  };
  assert.deepEqual(roundTrip([soa]).data, {
    mname: "ns1.example.org",
    rname: "hostmaster.example.org",
    serial: 4294967295,
    refresh: 3600,
    retry: 900,
    expire: 1209600,
    minimum: 300,
  });
});

Deno.test("encodeResponse writes escaped octets of names as themselves", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    answer: records("a\\.b\\032c.example. 300 IN A 192.0.2.1"),
  }, 512);
  const owner = [5, 0x61, 0x2e, 0x62, 0x20, 0x63, 7, ...ascii("example"), 0];
  assert.deepEqual([...message.subarray(12, 12 + owner.length)], owner);
});

Deno.test("encodeResponse rejects a TXT string over 255 octets", () => {
  const rrset: RRSet = {
    name: "x.example.",
    type: TYPE.TXT,
    ttl: 300,
    rdata: [{ type: "TXT", strings: [new Uint8Array(256)] }],
  };
  assert.throws(
    () => encodeResponse({ id: 1, opcode: 0, rcode: 0, answer: [rrset] }, 512),
    /TXT string: character-string longer than 255 octets/,
  );
});
