import assert from "node:assert/strict";
import type { SvcbRdata } from "../rdata.ts";
import { parseRdata } from "../rdata_text.ts";
import { TYPE } from "./constants.ts";
import { MessageWriter } from "./message_writer.ts";
import { encodeResponse } from "./response.ts";
import { writeSvcbRdata } from "./svcb_wire.ts";
import { buffer, decodeMessage } from "./testdata/dns_packet.ts";

function hex(text: string): number[] {
  return text.split(/\s+/).filter((octet) => octet !== "").map((octet) =>
    parseInt(octet, 16)
  );
}

function svcbWire(rdata: SvcbRdata): number[] {
  const w = new MessageWriter();
  w.reset();
  writeSvcbRdata(w, rdata);
  return [...w.finish()];
}

function svcb(text: string): SvcbRdata {
  return parseRdata("SVCB", text) as SvcbRdata;
}

const FOO_EXAMPLE_COM = "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00";
const FOO_EXAMPLE_ORG = "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 6f 72 67 00";

/** RFC 9460 Appendix D, figures 2-10: presentation text and wire octets. */
const vectors: { figure: string; rdata: SvcbRdata; wire: string }[] = [
  {
    figure: "2 AliasMode",
    rdata: svcb("0 foo.example.com."),
    wire: `00 00 ${FOO_EXAMPLE_COM}`,
  },
  { figure: "3 root target", rdata: svcb("1 ."), wire: "00 01 00" },
  {
    figure: "4 port",
    rdata: svcb("16 foo.example.com. port=53"),
    wire: `00 10 ${FOO_EXAMPLE_COM} 00 03 00 02 00 35`,
  },
  {
    figure: "5 unregistered key",
    rdata: svcb("1 foo.example.com. key667=hello"),
    wire: `00 01 ${FOO_EXAMPLE_COM} 02 9b 00 05 68 65 6c 6c 6f`,
  },
  {
    figure: "6 unregistered key with an escaped octet",
    rdata: svcb('1 foo.example.com. key667="hello\\210qoo"'),
    wire: `00 01 ${FOO_EXAMPLE_COM} 02 9b 00 09 68 65 6c 6c 6f d2 71 6f 6f`,
  },
  {
    figure: "7 two IPv6 hints",
    rdata: svcb('1 foo.example.com. ipv6hint="2001:db8::1,2001:db8::53:1"'),
    wire: `00 01 ${FOO_EXAMPLE_COM} 00 06 00 20
      20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01
      20 01 0d b8 00 00 00 00 00 00 00 00 00 53 00 01`,
  },
  {
    figure: "8 IPv6 hint with an embedded IPv4 address",
    rdata: svcb('1 example.com. ipv6hint="2001:db8:122:344::192.0.2.33"'),
    wire: `00 01 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00 00 06 00 10
      20 01 0d b8 01 22 03 44 00 00 00 00 c0 00 02 21`,
  },
  {
    figure: "9 params and mandatory keys sorted",
    rdata: svcb(
      "16 foo.example.org. alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1",
    ),
    wire: `00 10 ${FOO_EXAMPLE_ORG} 00 00 00 04 00 01 00 04
      00 01 00 09 02 68 32 05 68 33 2d 31 39 00 04 00 04 c0 00 02 01`,
  },
  {
    figure: "10 alpn id with a backslash and a comma",
    rdata: {
      type: "SVCB",
      priority: 16,
      target: "foo.example.org.",
      params: [{
        key: "alpn",
        ids: [
          new TextEncoder().encode("f\\oo,bar"),
          new TextEncoder().encode("h2"),
        ],
      }],
    },
    wire:
      `00 10 ${FOO_EXAMPLE_ORG} 00 01 00 0c 08 66 5c 6f 6f 2c 62 61 72 02 68 32`,
  },
];

Deno.test("writeSvcbRdata matches the RFC 9460 test vectors", async (t) => {
  for (const vector of vectors) {
    await t.step(`figure ${vector.figure}`, () => {
      assert.deepEqual(svcbWire(vector.rdata), hex(vector.wire));
    });
  }
});

Deno.test("writeSvcbRdata writes no-default-alpn, ech and dohpath", () => {
  const rdata: SvcbRdata = {
    type: "HTTPS",
    priority: 1,
    target: ".",
    params: [
      { key: "dohpath", template: "/q{?dns}" },
      { key: "ech", config: new Uint8Array([0xfe, 0x0d]) },
      { key: "no-default-alpn" },
    ],
  };
  assert.deepEqual(
    svcbWire(rdata),
    hex(`00 01 00 00 02 00 00 00 05 00 02 fe 0d
      00 07 00 08 2f 71 7b 3f 64 6e 73 7d`),
  );
});

Deno.test("writeSvcbRdata leaves the params of its input in their order", () => {
  const rdata = svcb("1 . port=443 alpn=h2");
  svcbWire(rdata);
  assert.deepEqual(rdata.params.map((param) => param.key), ["port", "alpn"]);
});

Deno.test("encodeResponse frames HTTPS data with its length", () => {
  const rdata = svcb(
    "16 foo.example.org. alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1",
  );
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    answer: [{
      name: "example.org.",
      type: TYPE.HTTPS,
      ttl: 300,
      rdata: [{ ...rdata, type: "HTTPS" }],
    }],
  }, 512);
  assert.deepEqual(
    decodeMessage(message).answers[0]?.data,
    buffer(svcbWire(rdata)),
  );
});

Deno.test("encodeResponse does not compress the SVCB target", () => {
  const message = encodeResponse({
    id: 1,
    opcode: 0,
    rcode: 0,
    question: { name: "foo.example.org.", type: TYPE.SVCB, class: 1 },
    answer: [{
      name: "foo.example.org.",
      type: TYPE.SVCB,
      ttl: 300,
      rdata: [svcb("1 foo.example.org.")],
    }],
  }, 512);
  const tail = [...message.subarray(message.length - 17)];
  assert.deepEqual(tail, hex(FOO_EXAMPLE_ORG));
});
