/**
 * The DNS wire fast path (docs/design.md#wire-fast-path): parsing a typical
 * EDNS query and encoding a two-record A answer with compression.
 *
 *   deno bench bench/wire_bench.ts
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import { CLASS, TYPE } from "../src/dns/wire/constants.ts";
import { parseQuery } from "../src/dns/wire/query.ts";
import { encodeResponse, type ResponseSpec } from "../src/dns/wire/response.ts";

const query = new Uint8Array(dnsPacket.encode({
  type: "query",
  id: 4242,
  flags: dnsPacket.RECURSION_DESIRED,
  questions: [{ type: "A", name: "www.example.org" }],
  additionals: [{
    type: "OPT",
    name: ".",
    udpPayloadSize: 1232,
    options: [{ code: 10, data: Buffer.alloc(8, 7) }],
  }],
}));

const answer: ResponseSpec = {
  id: 4242,
  opcode: 0,
  rcode: 0,
  aa: true,
  rd: true,
  question: { name: "www.example.org.", type: TYPE.A, class: CLASS.IN },
  answer: [{
    name: "www.example.org.",
    type: TYPE.A,
    ttl: 300,
    rdata: [
      { type: "A", address: "192.0.2.1" },
      { type: "A", address: "192.0.2.2" },
    ],
  }],
  edns: { udpSize: 1232 },
};

Deno.bench("parseQuery EDNS query with a cookie", () => {
  parseQuery(query);
});

Deno.bench("encodeResponse 2-record A answer with OPT", () => {
  encodeResponse(answer, 1232);
});
