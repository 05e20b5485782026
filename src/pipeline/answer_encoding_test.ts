import assert from "node:assert/strict";
import { answerSizeLimit } from "./answer_encoding.ts";

Deno.test("answer size limit follows transport and EDNS", async (t) => {
  const edns = (udpSize: number) => ({
    edns: {
      udpSize,
      version: 0,
      dnssecOk: false,
      extendedRcode: 0,
      options: [],
    },
  });
  const cases = [
    {
      name: "UDP without EDNS",
      query: { edns: undefined },
      transport: "udp" as const,
      limit: 512,
    },
    {
      name: "UDP with 1232",
      query: edns(1232),
      transport: "udp" as const,
      limit: 1232,
    },
    {
      name: "UDP below 512 means 512",
      query: edns(100),
      transport: "udp" as const,
      limit: 512,
    },
    {
      name: "UDP above 1232 is capped at 1232, as NSD and Knot send",
      query: edns(4096),
      transport: "udp" as const,
      limit: 1232,
    },
    { name: "TCP", query: edns(1232), transport: "tcp" as const, limit: 65535 },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.equal(answerSizeLimit(c.query, c.transport), c.limit);
    });
  }
});
