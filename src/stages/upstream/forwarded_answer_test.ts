import assert from "node:assert/strict";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { forwardedAnswer } from "./forwarded_answer.ts";
import {
  requestFrom,
  rrsets,
  upstreamAnswer,
} from "./testdata/upstream_fixtures.ts";

const noSubnet = {};

Deno.test("forwardedAnswer keeps compressed names readable in the client's case", () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets([
      "www.example.org. 300 IN CNAME web.example.org.",
      "web.example.org. 300 IN A 192.0.2.1",
    ]),
  });
  const req = requestFrom("WWW.Example.ORG. A");
  const decoded = decodeAnswer(forwardedAnswer(upstream, req, noSubnet).wire);
  assert.deepEqual(decoded.question, ["WWW.Example.ORG. A IN"]);
  assert.deepEqual(decoded.answer, [
    "WWW.Example.ORG. 300 IN CNAME web.Example.ORG.",
    "web.Example.ORG. 300 IN A 192.0.2.1",
  ]);
});

Deno.test("forwardedAnswer leaves out additional records before setting TC", () => {
  const glue = Array.from(
    { length: 30 },
    (_, i) => `ns${i}.example.org. 300 IN A 192.0.2.${i + 1}`,
  );
  const upstream = upstreamAnswer("example.org. NS", {
    answer: rrsets(["example.org. 300 IN NS ns0.example.org."]),
    additional: rrsets(glue),
  });
  const req = requestFrom("example.org. NS");
  const { wire, truncated, partial } = forwardedAnswer(
    upstream,
    req,
    noSubnet,
  );
  const decoded = decodeAnswer(wire);
  assert.equal(truncated, false);
  assert.equal(partial, true, "the additional records were left out");
  assert.equal(decoded.tc, false);
  assert.deepEqual(decoded.answer, ["example.org. 300 IN NS ns0.example.org."]);
  assert.deepEqual(decoded.additional, []);
});

Deno.test("forwardedAnswer drops records after the upstream's OPT", () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
    additional: rrsets(["ns.example.org. 300 IN A 192.0.2.53"]),
    edns: { udpSize: 1232 },
  });
  const req = requestFrom("www.example.org. A", { edns: {} });
  const decoded = decodeAnswer(forwardedAnswer(upstream, req, noSubnet).wire);
  assert.deepEqual(decoded.additional, ["ns.example.org. 300 IN A 192.0.2.53"]);
  const reordered = optFirst(upstream);
  const after = decodeAnswer(forwardedAnswer(reordered, req, noSubnet).wire);
  assert.deepEqual(after.additional, []);
  assert.notEqual(after.opt, undefined);
});

/** The same message with its last additional record (the OPT) moved first. */
function optFirst(message: Uint8Array): Uint8Array {
  const optLength = 11; // root owner, no options
  const optStart = message.length - optLength;
  const aLength = 16; // compressed owner (2) + fixed part (10) + address (4)
  const aStart = optStart - aLength;
  const out = message.slice();
  out.set(message.subarray(optStart), aStart);
  out.set(message.subarray(aStart, optStart), aStart + optLength);
  return out;
}

Deno.test("forwardedAnswer keeps AD only for clients that set DO or AD", async (t) => {
  const upstream = upstreamAnswer("www.example.org. A", { ad: true });
  const cases = [
    { name: "no DO", edns: {}, ad: false },
    { name: "DO", edns: { do: true }, ad: true },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const req = requestFrom("www.example.org. A", { edns: c.edns });
      const wire = forwardedAnswer(upstream, req, noSubnet).wire;
      assert.equal((wire[3]! & 0x20) !== 0, c.ad);
    });
  }
});

Deno.test("forwardedAnswer keeps the upstream's TC", () => {
  const upstream = upstreamAnswer("www.example.org. A", { tc: true });
  const req = requestFrom("www.example.org. A");
  assert.equal(
    decodeAnswer(forwardedAnswer(upstream, req, noSubnet).wire).tc,
    true,
  );
});

Deno.test("forwardedAnswer rejects an extended RCODE for a client without EDNS", () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    rcode: 16,
    edns: { udpSize: 1232 },
  });
  const req = requestFrom("www.example.org. A");
  assert.throws(
    () => forwardedAnswer(upstream, req, noSubnet),
    WireFormatError,
  );
});

Deno.test("forwardedAnswer rejects a truncated message", () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
  });
  const req = requestFrom("www.example.org. A");
  assert.throws(
    () =>
      forwardedAnswer(upstream.subarray(0, upstream.length - 2), req, noSubnet),
    WireFormatError,
  );
});

/** ECS option data for 198.51.100.0/24 or 203.0.113.0/24, with `scope`. */
function subnet(third: "198.51.100" | "203.0.113", scope = 0): Uint8Array {
  return new Uint8Array([0, 1, 24, scope, ...third.split(".").map(Number)]);
}

Deno.test("forwardedAnswer passes the upstream's client subnet on only for the subnet the client sent", async (t) => {
  const ours = subnet("198.51.100");
  const theirs = subnet("203.0.113");
  const cases: {
    name: string;
    client?: Uint8Array;
    sent?: Uint8Array;
    upstream?: Uint8Array;
    /** What the client gets, and what the cache is told. */
    echoed?: Uint8Array;
    kept?: Uint8Array;
  }[] = [
    {
      name: "forwarded as the client sent it",
      client: ours,
      sent: ours,
      upstream: subnet("198.51.100", 16),
      echoed: subnet("198.51.100", 16),
      kept: subnet("198.51.100", 16),
    },
    {
      name: "added for a client that sent none",
      sent: ours,
      upstream: subnet("198.51.100", 24),
      kept: subnet("198.51.100", 24),
    },
    {
      name: "added in place of the client's own subnet",
      client: theirs,
      sent: ours,
      upstream: subnet("198.51.100", 24),
      kept: subnet("198.51.100", 24),
    },
    {
      name: "upstream answers for a subnet not sent: as if it sent none",
      client: ours,
      sent: ours,
      upstream: subnet("203.0.113", 24),
      echoed: ours,
      kept: ours,
    },
    {
      name: "upstream sends none: SCOPE 0 (RFC 7871 §7.3)",
      client: ours,
      sent: ours,
      echoed: ours,
      kept: ours,
    },
    {
      name: "upstream answers with one though none was sent",
      client: ours,
      upstream: subnet("198.51.100", 24),
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const upstream = upstreamAnswer("www.example.org. A", {
        answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
        edns: {
          udpSize: 1232,
          options: c.upstream ? [{ code: 8, data: c.upstream }] : [],
        },
      });
      const req = requestFrom("www.example.org. A", {
        edns: { options: c.client ? [{ code: 8, data: c.client }] : [] },
      });
      const made = forwardedAnswer(upstream, req, { sentSubnet: c.sent });
      const echoed = decodeAnswer(made.wire).opt!.options
        .filter((o) => o.code === 8).map((o) => [...o.data]);
      assert.deepEqual(echoed, c.echoed ? [[...c.echoed]] : []);
      assert.deepEqual(
        made.clientSubnet && [...made.clientSubnet],
        c.kept && [...c.kept],
      );
    });
  }
});

Deno.test("forwardedAnswer passes a TTL with its high bit set on as 0 (RFC 2181 §8)", () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
  });
  // The first answer record's TTL: after the 12-octet header, the question
  // (17 + 4 octets) and the record's owner pointer, type and class.
  const ttlAt = 12 + 17 + 4 + 2 + 4;
  assert.deepEqual([...upstream.subarray(ttlAt, ttlAt + 4)], [0, 0, 1, 0x2c]);
  upstream.set([0x80, 0, 0, 5], ttlAt);
  const req = requestFrom("www.example.org. A");
  const decoded = decodeAnswer(forwardedAnswer(upstream, req, noSubnet).wire);
  assert.deepEqual(decoded.answer, ["www.example.org. 0 IN A 192.0.2.1"]);
});
