import assert from "node:assert/strict";
import { signMessage } from "../../dns/tsig/tsig.ts";
import { EDNS_OPTION } from "../../dns/wire/constants.ts";
import { encodeAnswer } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import { buildRequest } from "../../pipeline/request_builder.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import {
  requestFor,
  type RequestOptions,
  snapshotOf,
} from "../../testing/fixtures.ts";
import { encodeQuery } from "../../testing/query_bytes.ts";
import { createIngressStage } from "./ingress.ts";

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

async function serve(req: Request): Promise<Response> {
  return await createIngressStage().serve(req, () => passed);
}

async function run(q: string, opts: RequestOptions = {}) {
  const req = requestFor(q, opts);
  const res = await serve(req);
  return {
    req,
    res,
    decoded: res === passed ? undefined : decodeResponse(req, res),
  };
}

const snapshot = snapshotOf([]);

Deno.test("ingress answers errors for queries it will not process", async (t) => {
  const cases: {
    name: string;
    q: string;
    opts: RequestOptions;
    rcode: string;
    status: string;
  }[] = [
    {
      name: "UPDATE is refused",
      q: "example.org. SOA",
      opts: { opcode: 5 },
      rcode: "REFUSED",
      status: "refused",
    },
    {
      name: "IQUERY is not implemented",
      q: "example.org. A",
      opts: { opcode: 1 },
      rcode: "NOTIMP",
      status: "notimp",
    },
    {
      name: "STATUS is not implemented",
      q: "example.org. A",
      opts: { opcode: 2 },
      rcode: "NOTIMP",
      status: "notimp",
    },
    {
      name: "AXFR over UDP is not implemented (TCP goes on to authoritative)",
      q: "example.org. AXFR",
      opts: {},
      rcode: "NOTIMP",
      status: "notimp",
    },
    {
      name: "EDNS version 1 gets BADVERS",
      q: "example.org. A",
      opts: { edns: { version: 1 } },
      rcode: "BADVERS",
      status: "badvers",
    },
    ...["TYPE0", "OPT", "TSIG"].map((type) => ({
      name: `a question for type ${type} is FORMERR`,
      q: `example.org. ${type}`,
      opts: {},
      rcode: "FORMERR",
      status: "formerr",
    })),
    ...[1, 7, 9, 15, 41].map((length) => ({
      name: `a COOKIE option of ${length} octets is FORMERR`,
      q: "example.org. A",
      opts: { edns: { options: [{ code: 10, data: new Uint8Array(length) }] } },
      rcode: "FORMERR",
      status: "formerr",
    })),
    {
      name: "a malformed client subnet option is FORMERR",
      q: "example.org. A",
      opts: {
        edns: { options: [{ code: 8, data: new Uint8Array([0, 1, 24, 0]) }] },
      },
      rcode: "FORMERR",
      status: "formerr",
    },
    {
      name: "class HS is refused",
      q: "example.org. A",
      opts: { qclass: "HS" },
      rcode: "REFUSED",
      status: "refused",
    },
    {
      name: "unknown CHAOS names are refused",
      q: "authors.bind. TXT",
      opts: { qclass: "CH" },
      rcode: "REFUSED",
      status: "refused",
    },
    {
      name: "CHAOS identity names hold TXT only: other types are refused",
      q: "id.server. A",
      opts: { qclass: "CH" },
      rcode: "REFUSED",
      status: "refused",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { res, decoded } = await run(c.q, c.opts);
      assert.equal(decoded?.rcode, c.rcode);
      assert.equal(res.status, c.status);
      assert.equal(res.stage, "ingress");
    });
  }
});

Deno.test("ingress answers BADVERS with an OPT record of version 0", async () => {
  const { decoded } = await run("example.org. A", { edns: { version: 1 } });
  assert.equal(decoded?.opt?.version, 0);
});

Deno.test("ingress drops responses", async () => {
  const { res } = await run("example.org. A", { qr: true });
  assert.equal(res.drop, true);
});

Deno.test("ingress drops messages without a header", async () => {
  const req = buildRequest(new Uint8Array([1, 2, 3]), {
    client: { address: "192.0.2.1", port: 1, transport: "udp" },
    snapshot,
    node: snapshot.node,
    received: 0,
  });
  const res = await serve(req);
  assert.equal(res.drop, true);
});

Deno.test("ingress answers FORMERR to a header followed by garbage", async () => {
  const bytes = new Uint8Array([
    0xab,
    0xcd,
    1,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    70,
    1,
  ]);
  const req = buildRequest(bytes, {
    client: { address: "192.0.2.1", port: 1, transport: "udp" },
    snapshot,
    node: snapshot.node,
    received: 0,
  });
  const decoded = decodeResponse(req, await serve(req));
  assert.equal(decoded?.rcode, "FORMERR");
  assert.equal(decoded?.id, 0xabcd);
});

Deno.test("ingress passes ordinary IN queries on", async () => {
  const { res } = await run("www.example.org. A", { snapshot });
  assert.equal(res, passed);
});

Deno.test("ingress passes transfers on: AXFR over a connection, IXFR over any", async () => {
  const streams = () => {};
  for (
    const [q, transport] of [
      ["example.org. AXFR", "tcp"],
      ["example.org. AXFR", "dot"],
      ["example.org. AXFR", "doq"],
      ["example.org. IXFR", "tcp"],
      ["example.org. IXFR", "udp"],
      ["example.org. IXFR", "doh"],
    ] as const
  ) {
    const { res } = await run(q, {
      snapshot,
      transport,
      ...(transport !== "udp" && transport !== "doh" && { streams }),
    });
    assert.equal(res, passed, `${q} over ${transport}`);
  }
  // DoH answers one message per request: no AXFR there.
  const { decoded } = await run("example.org. AXFR", {
    snapshot,
    transport: "doh",
  });
  assert.equal(decoded?.rcode, "NOTIMP");
  // NOTIFY (RFC 1996) goes on too: authoritative answers it.
  const { res } = await run("example.org. SOA", { snapshot, opcode: 4 });
  assert.equal(res, passed);
});

Deno.test("ingress passes QCLASS ANY on: it asks for the IN data", async () => {
  const { res } = await run("www.example.org. A", { snapshot, qclass: "ANY" });
  assert.equal(res, passed);
});

Deno.test("ingress answers CHAOS identity names", async (t) => {
  const cases = [
    { q: "id.server. TXT", answer: 'id.server. 0 CH TXT "node-a"' },
    { q: "hostname.bind. TXT", answer: 'hostname.bind. 0 CH TXT "node-a"' },
    {
      q: "version.bind. TXT",
      answer: 'version.bind. 0 CH TXT "kudurru 1.2.3"',
    },
    {
      q: "VERSION.Server. TXT",
      answer: 'VERSION.Server. 0 CH TXT "kudurru 1.2.3"',
    },
    { q: "id.server. ANY", answer: 'id.server. 0 CH TXT "node-a"' },
  ];
  for (const c of cases) {
    await t.step(c.q, async () => {
      const { res, decoded } = await run(c.q, { qclass: "CH", snapshot });
      assert.equal(res.status, "chaos");
      assert.equal(
        decoded?.aa,
        false,
        "no CHAOS zone is held, like NSD and Knot",
      );
      assert.deepEqual(decoded?.answer, [c.answer]);
    });
  }
});

Deno.test("ingress passes on well-formed cookies and client subnets", async (t) => {
  const options = [
    ...[8, 16, 40].map((length) => ({
      name: `COOKIE of ${length} octets`,
      code: 10,
      data: new Uint8Array(length),
    })),
    {
      name: "client subnet /24",
      code: 8,
      data: new Uint8Array([0, 1, 24, 0, 198, 51, 100]),
    },
  ];
  for (const { name, code, data } of options) {
    await t.step(name, async () => {
      const { res } = await run("example.org. A", {
        edns: { options: [{ code, data }] },
      });
      assert.equal(res, passed);
    });
  }
});

Deno.test("ingress answers the health check with node and snapshot version, unlogged", async () => {
  const { res, decoded } = await run("health.kudurru.internal. TXT", {
    snapshot: snapshotOf([], [], 42),
  });
  assert.deepEqual(decoded?.answer, [
    'health.kudurru.internal. 0 IN TXT "node-a" "42"',
  ]);
  assert.equal(res.status, "health");
  assert.equal(res.unlogged, true);
});

Deno.test("ingress answers the health check SERVFAIL before the first snapshot", async () => {
  const { decoded } = await run("health.kudurru.internal. TXT");
  assert.equal(decoded?.rcode, "SERVFAIL");
});

Deno.test("ingress answers the health check SERVFAIL in lameduck, unlogged", async () => {
  const req = { ...requestFor("health.kudurru.internal. TXT", { snapshot }) };
  const res = await serve({ ...req, lameduck: true });
  assert.equal(decodeResponse(req, res)?.rcode, "SERVFAIL");
  assert.equal(res.unlogged, true);
});

Deno.test("ingress adds NSID to the answer options when the query asks for it", async () => {
  const { req } = await run("www.example.org. A", {
    snapshot,
    edns: { options: [{ code: EDNS_OPTION.NSID, data: new Uint8Array() }] },
  });
  assert.deepEqual(req.answerOptions, [
    { code: EDNS_OPTION.NSID, data: new TextEncoder().encode("node-a") },
  ]);
});

Deno.test("ingress adds no NSID when the query does not ask for it", async () => {
  const { req } = await run("www.example.org. A", { snapshot, edns: {} });
  assert.deepEqual(req.answerOptions, []);
});

Deno.test("ingress answers a TSIG-signed query NOTAUTH with an unsigned BADKEY TSIG record", async () => {
  // deno-fmt-ignore
  const bytes = new Uint8Array([
    0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1,
    1, 0x61, 0, 0, 1, 0, 1, // a. A IN
    1, 0x6b, 0, 0, 250, 0, 255, 0, 0, 0, 0, 0, 21, // k. TSIG ANY, RDLENGTH 21
    1, 0x61, 0, 0, 0, 0, 0, 0, 1, 1, 0x2c, 0, 2, 0xaa, 0xbb, // a., time, fudge, MAC
    0x12, 0x34, 0, 0, 0, 0, // Original ID, Error, Other Len
  ]);
  const req = buildRequest(bytes, {
    client: { address: "192.0.2.1", port: 1, transport: "udp" },
    snapshot,
    node: snapshot.node,
    received: 0,
  });
  const res = await serve(req);
  assert.equal(res.status, "notauth");
  const wire = encodeAnswer(req, res.message!);
  assert.equal(wire[3]! & 0x0f, 9, "NOTAUTH");
  assert.deepEqual([...wire.subarray(10, 12)], [0, 1], "ARCOUNT: the TSIG");
  // The last record: ... MAC Size 0, Original ID, Error 17 (BADKEY), no Other Data.
  assert.deepEqual([...wire.subarray(-8)], [0, 0, 0x12, 0x34, 0, 17, 0, 0]);
});

Deno.test("ingress checks a signed query against the snapshot's keys: the key marked on the request, or NOTAUTH with the error", async (t) => {
  const key = {
    ref: "xfr",
    name: "xfr.example.",
    algorithm: "hmac-sha256" as const,
    secret: new Uint8Array(32).fill(1),
  };
  const keyed = { ...snapshotOf([]), tsigKeys: [key] };
  const now = Math.floor(Date.now() / 1000);
  const ask = async (secret: Uint8Array, signedAt: number) => {
    const query = await signMessage(
      encodeQuery("example.org. AXFR"),
      { ...key, secret },
      { now: signedAt },
    );
    const req = buildRequest(query.message, {
      client: {
        address: "127.0.0.1",
        port: 1,
        transport: "tcp",
        streams: () => {},
      },
      snapshot: keyed,
      node: keyed.node,
      received: Date.now(),
    });
    const res = await serve(req);
    const error = res === passed || res.message === undefined
      ? undefined
      : encodeAnswer(req, res.message).subarray(-4, -2);
    return { req, res, query, error };
  };
  await t.step("the right key: passed on, marked", async () => {
    const { req, res, query } = await ask(key.secret, now);
    assert.equal(res, passed);
    assert.equal(req.tsig?.key, key);
    assert.deepEqual(req.tsig?.mac, query.mac);
  });
  await t.step("a wrong secret: BADSIG", async () => {
    const { res, error } = await ask(new Uint8Array(32).fill(2), now);
    assert.equal(res.status, "notauth");
    assert.deepEqual([...error!], [0, 16]);
  });
  await t.step(
    "signed an hour ago: BADTIME, signed, with our clock",
    async () => {
      const { req, res } = await ask(key.secret, now - 3600);
      assert.equal(res.status, "notauth");
      const wire = res.wire!;
      assert.equal(wire[3]! & 0x0f, 9, "NOTAUTH");
      // From the end: Other Data (6: our time), Other Len, Error, Original ID,
      // then a MAC of 32 octets (signed, RFC 8945 §5.2.3).
      const view = new DataView(wire.buffer, wire.byteOffset, wire.length);
      const ourTime = view.getUint16(wire.length - 6) * 2 ** 32 +
        view.getUint32(wire.length - 4);
      assert.ok(Math.abs(ourTime - now) <= 2, `${ourTime} against ${now}`);
      assert.deepEqual([...wire.subarray(-8, -6)], [0, 6]);
      assert.deepEqual([...wire.subarray(-10, -8)], [0, 18]);
      assert.deepEqual([...wire.subarray(-12, -10)], [
        req.query.id >> 8,
        req.query.id & 0xff,
      ]);
      assert.deepEqual([...wire.subarray(-46, -44)], [0, 32]);
    },
  );
});
