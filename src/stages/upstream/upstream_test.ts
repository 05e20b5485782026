import assert from "node:assert/strict";
import { EDNS_OPTION, RCODE } from "../../dns/wire/constants.ts";
import { extendedError } from "../../dns/wire/extended_error.ts";
import { memoryLogger } from "../../log/logger.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import type { UpstreamResult } from "../../upstream/types.ts";
import { EDNS_CLIENT_SUBNET } from "./client_subnet.ts";
import { createUpstreamStage, type UpstreamStage } from "./upstream.ts";
import {
  answered,
  type ClientRequestOptions,
  requestFrom,
  rrsets,
  scriptedResolver,
  snapshotWith,
  upstreamAnswer,
  upstreamsOf,
} from "./testdata/upstream_fixtures.ts";

const upstreams = upstreamsOf({
  groups: {
    default: { servers: ["192.0.2.53"] },
    "internal-ad": { servers: ["10.0.0.5"] },
  },
  conditional: { "corp.example.": "internal-ad" },
});
const snapshot = snapshotWith(upstreams);

const wwwAnswer = upstreamAnswer("www.example.org. A", {
  aa: true,
  answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
});

function stageWith(result: UpstreamResult) {
  const resolver = scriptedResolver(result);
  const stage = createUpstreamStage({ resolver, logger: memoryLogger() });
  return { resolver, stage };
}

async function serve(
  stage: UpstreamStage,
  q: string,
  opts: ClientRequestOptions = {},
): Promise<{ req: Request; res: Response }> {
  const req = requestFrom(q, { snapshot, ...opts });
  const res = await stage.serve(req, () => {
    throw new Error("the upstream stage never calls next");
  });
  return { req, res };
}

function edeOf(res: Response): { code: number; text: string } | undefined {
  const ede = res.message?.edns?.options?.find((o) =>
    o.code === EDNS_OPTION.EDE
  );
  if (ede === undefined) return undefined;
  return {
    code: (ede.data[0]! << 8) | ede.data[1]!,
    text: new TextDecoder().decode(ede.data.subarray(2)),
  };
}

Deno.test("upstream refuses without upstream settings", async () => {
  const { resolver, stage } = stageWith(answered(wwwAnswer));
  const { req, res } = await serve(stage, "www.example.org. A", {
    snapshot: undefined,
  });
  assert.equal(res.status, "refused");
  assert.equal(decodeResponse(req, res)?.rcode, "REFUSED");
  assert.equal(resolver.calls.length, 0);
});

Deno.test("upstream forwards and answers with the upstream's records", async () => {
  const { stage } = stageWith(answered(wwwAnswer));
  const { req, res } = await serve(stage, "www.example.org. A", { id: 77 });
  assert.equal(res.status, "forwarded");
  assert.equal(res.stage, "upstream");
  assert.equal(res.upstream, "tls://192.0.2.53");
  assert.equal(res.cacheable, true);
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.id, 77);
  assert.deepEqual(decoded.answer, ["www.example.org. 300 IN A 192.0.2.1"]);
});

Deno.test("upstream marks conditional answers not cacheable", async () => {
  const { stage } = stageWith(
    answered(upstreamAnswer("host.corp.example. A")),
  );
  const { res } = await serve(stage, "host.corp.example. A");
  assert.equal(res.status, "forwarded");
  assert.equal(res.cacheable, false);
});

Deno.test("upstream answers carry RA, the client's case and no AA", async () => {
  const { stage } = stageWith(answered(wwwAnswer));
  const { res } = await serve(stage, "WwW.ExAmple.ORG. A");
  const wire = res.wire!;
  assert.equal(wire[3]! & 0x80, 0x80, "RA");
  assert.equal(wire[2]! & 0x04, 0, "AA");
  const name = new TextDecoder().decode(wire.subarray(13, 16));
  assert.equal(name, "WwW");
});

Deno.test("upstream asks the routed group with the client's question and bits", async () => {
  const { resolver, stage } = stageWith(
    answered(upstreamAnswer("Host.Corp.Example. AAAA")),
  );
  await serve(stage, "Host.Corp.Example. AAAA", {
    cd: true,
    edns: { do: true },
  });
  assert.deepEqual(resolver.calls.map((c) => [c.group, c.request]), [[
    "internal-ad",
    {
      name: "Host.Corp.Example.",
      type: 28,
      class: 1,
      dnssecOk: true,
      checkingDisabled: true,
    },
  ]]);
});

Deno.test("upstream answers SERVFAIL on failure", async (t) => {
  const cases: {
    name: string;
    result: UpstreamResult;
    status: string;
    ede: { code: number; text: string };
    /** The server the query log puts the failure down to. */
    upstream?: string;
  }[] = [
    {
      name: "timeout: EDE 22 No Reachable Authority",
      result: {
        ok: false,
        reason: "timeout",
        detail: "2s passed",
        server: "192.0.2.53",
      },
      status: "timeout_upstream",
      ede: { code: 22, text: 'upstream group "default" timed out' },
      upstream: "192.0.2.53",
    },
    {
      name: "error: EDE 23 Network Error",
      result: { ok: false, reason: "error", detail: "connection refused" },
      status: "servfail_upstream",
      ede: { code: 23, text: 'upstream group "default" failed' },
    },
    {
      name: "a group no one configured: EDE 23 that says so",
      result: {
        ok: false,
        reason: "unknown_group",
        detail: 'unknown upstream group "default"',
      },
      status: "servfail_upstream",
      ede: { code: 23, text: 'no upstream group "default" is configured' },
    },
    {
      name: "a group with too many queries waiting: EDE 0 saying so, at once",
      result: {
        ok: false,
        reason: "busy",
        detail:
          'upstream group "default" has 200 queries waiting (upstreams.groups.default.maxInFlight)',
      },
      status: "overloaded_upstream",
      ede: {
        code: 0,
        text:
          'upstream group "default" has 200 queries waiting (upstreams.groups.default.maxInFlight)',
      },
    },
    {
      name: "an answer to another question: EDE 23",
      result: answered(upstreamAnswer("other.example.org. A")),
      status: "servfail_upstream",
      ede: {
        code: 23,
        text: 'upstream group "default" sent an unusable answer',
      },
      upstream: "tls://192.0.2.53",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { stage } = stageWith(c.result);
      const { req, res } = await serve(stage, "www.example.org. A", {
        edns: {},
      });
      assert.equal(res.status, c.status);
      assert.deepEqual(edeOf(res), c.ede);
      assert.equal(res.upstream, c.upstream);
      const decoded = decodeResponse(req, res)!;
      assert.equal(decoded.rcode, "SERVFAIL");
      assert.equal(res.message?.ra, true);
    });
  }
});

Deno.test("upstream rewrites the OPT record for the client", async () => {
  const ede = new Uint8Array([0, 3, 0x73]); // 3 Stale Answer, "s"
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
    edns: {
      udpSize: 4096,
      options: [
        { code: EDNS_OPTION.COOKIE, data: new Uint8Array(16) },
        { code: EDNS_OPTION.EDE, data: ede },
      ],
    },
  });
  const { stage } = stageWith(answered(upstream));
  const req = requestFrom("www.example.org. A", {
    snapshot,
    edns: { do: true },
  });
  // What ingress adds when the client asks for NSID.
  req.answerOptions.push({
    code: EDNS_OPTION.NSID,
    data: new TextEncoder().encode("node-a"),
  });
  const res = await stage.serve(req, () => {
    throw new Error("unreachable");
  });
  const opt = decodeResponse(req, res)!.opt!;
  assert.equal(opt.udpSize, 1232);
  assert.equal(opt.do, true);
  assert.deepEqual(opt.options.map((o) => o.code), [
    EDNS_OPTION.EDE,
    EDNS_OPTION.NSID,
  ]);
});

Deno.test("upstream sends no OPT to a client without EDNS", async () => {
  const upstream = upstreamAnswer("www.example.org. A", {
    answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
    edns: { udpSize: 4096 },
  });
  const { stage } = stageWith(answered(upstream));
  const { req, res } = await serve(stage, "www.example.org. A");
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.opt, undefined);
  assert.deepEqual(decoded.additional, []);
});

Deno.test("upstream truncates a big answer for a 512-octet UDP client", async () => {
  const lines = Array.from(
    { length: 40 },
    (_, i) => `big.example.org. 300 IN A 192.0.2.${i + 1}`,
  );
  const upstream = upstreamAnswer("big.example.org. A", {
    answer: [{
      ...rrsets(lines.slice(0, 1))[0]!,
      rdata: rrsets(lines).map((r) => r.rdata[0]!),
    }],
  });
  const { stage } = stageWith(answered(upstream));
  const { req, res } = await serve(stage, "big.example.org. A");
  assert.ok(res.wire!.length <= 512);
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.tc, true);
  assert.deepEqual(decoded.answer, []);
  // The cache keeps the whole answer, not this client's cut.
  assert.equal(res.cacheable, true);
  assert.equal(decodeAnswer(res.wholeWire!).answer.length, 40);
});

Deno.test("upstream sends the whole big answer over TCP", async () => {
  const lines = Array.from(
    { length: 40 },
    (_, i) => `big.example.org. 300 IN A 192.0.2.${i + 1}`,
  );
  const upstream = upstreamAnswer("big.example.org. A", {
    answer: [{
      ...rrsets(lines.slice(0, 1))[0]!,
      rdata: rrsets(lines).map((r) => r.rdata[0]!),
    }],
  });
  const { stage } = stageWith(answered(upstream));
  const { req, res } = await serve(stage, "big.example.org. A", {
    transport: "tcp",
  });
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.tc, false);
  assert.equal(decoded.answer.length, 40);
});

Deno.test("upstream handles EDNS Client Subnet per mode", async (t) => {
  const clientEcs = new Uint8Array([0, 1, 24, 0, 198, 51, 100]);
  const cases: {
    name: string;
    ecs: Record<string, unknown>;
    address: string;
    sent?: Uint8Array;
    want: number[] | undefined;
  }[] = [
    {
      name: "strip never sends one",
      ecs: {},
      address: "8.8.4.4",
      sent: clientEcs,
      want: undefined,
    },
    {
      name: "forward passes the client's on",
      ecs: { mode: "forward" },
      address: "8.8.4.4",
      sent: clientEcs,
      want: [...clientEcs],
    },
    {
      name: "forward sends none when the client sent none",
      ecs: { mode: "forward" },
      address: "8.8.4.4",
      want: undefined,
    },
    {
      name: "add truncates an IPv4 client to ipv4Prefix",
      ecs: { mode: "add", ipv4Prefix: 20 },
      address: "8.8.255.4",
      want: [0, 1, 20, 0, 8, 8, 0xf0],
    },
    {
      name: "add truncates an IPv6 client to ipv6Prefix",
      ecs: { mode: "add" },
      address: "2a00:1450:4001:81f::200e",
      want: [0, 2, 56, 0, 0x2a, 0x00, 0x14, 0x50, 0x40, 0x01, 0x08],
    },
    {
      name: "add treats an IPv4-mapped client as IPv4",
      ecs: { mode: "add" },
      address: "::ffff:8.8.4.4",
      want: [0, 1, 24, 0, 8, 8, 4],
    },
    {
      name: "add sends none for a private client",
      ecs: { mode: "add" },
      address: "10.1.2.3",
      want: undefined,
    },
    {
      name: "add sends none for loopback",
      ecs: { mode: "add" },
      address: "::1",
      want: undefined,
    },
    {
      name: "add keeps a client's /0 opt-out",
      ecs: { mode: "add" },
      address: "8.8.4.4",
      sent: new Uint8Array([0, 1, 0, 0]),
      want: [0, 1, 0, 0],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { resolver, stage } = stageWith(answered(wwwAnswer));
      const settings = upstreamsOf({ ecs: c.ecs });
      await serve(stage, "www.example.org. A", {
        snapshot: snapshotWith(settings),
        address: c.address,
        ...(c.sent && {
          edns: { options: [{ code: EDNS_CLIENT_SUBNET, data: c.sent }] },
        }),
      });
      const sent = resolver.calls[0]!.request.clientSubnet;
      assert.deepEqual(sent && [...sent], c.want);
    });
  }
});

Deno.test("upstream answers meta-types and other classes itself, forwarding nothing", async (t) => {
  const cases: { q: string; opts: ClientRequestOptions; rcode: string }[] = [
    { q: "www.example.org. OPT", opts: {}, rcode: "FORMERR" },
    { q: "www.example.org. TSIG", opts: {}, rcode: "FORMERR" },
    { q: "www.example.org. A", opts: { qclass: "ANY" }, rcode: "REFUSED" },
    // RFC 1034 §4.3.2: without RD, only our own data (Unbound: REFUSED).
    { q: "www.example.org. A", opts: { rd: false }, rcode: "REFUSED" },
  ];
  for (const c of cases) {
    const label = `${c.q} class ${c.opts.qclass ?? "IN"}${
      c.opts.rd === false ? " RD=0" : ""
    }`;
    await t.step(label, async () => {
      const { resolver, stage } = stageWith(answered(wwwAnswer));
      const { req, res } = await serve(stage, c.q, c.opts);
      const decoded = decodeResponse(req, res)!;
      assert.equal(decoded.rcode, c.rcode);
      // We offer recursion: a refusal says so, as SERVFAIL does.
      if (c.rcode === "REFUSED") assert.equal(res.message?.ra, true);
      assert.equal(resolver.calls.length, 0);
    });
  }
});

Deno.test("upstream answers FORMERR to a malformed client subnet in forward mode", async () => {
  const { resolver, stage } = stageWith(answered(wwwAnswer));
  const { res } = await serve(stage, "www.example.org. A", {
    snapshot: snapshotWith(upstreamsOf({ ecs: { mode: "forward" } })),
    edns: {
      options: [{
        code: EDNS_CLIENT_SUBNET,
        data: new Uint8Array([0, 1, 24, 0, 198]),
      }],
    },
  });
  assert.equal(res.status, "formerr");
  assert.equal(resolver.calls.length, 0);
});

Deno.test("upstream returns the upstream's client subnet only to a client that sent that subnet", async (t) => {
  const ecs = new Uint8Array([0, 1, 24, 16, 198, 51, 100]);
  const upstream = upstreamAnswer("www.example.org. A", {
    edns: { udpSize: 1232, options: [{ code: EDNS_CLIENT_SUBNET, data: ecs }] },
  });
  for (const sent of [true, false]) {
    await t.step(sent ? "client sent one" : "client sent none", async () => {
      const { stage } = stageWith(answered(upstream));
      const options = sent
        ? [{
          code: EDNS_CLIENT_SUBNET,
          data: new Uint8Array([0, 1, 24, 0, 198, 51, 100]),
        }]
        : [];
      const { req, res } = await serve(stage, "www.example.org. A", {
        snapshot: snapshotWith(upstreamsOf({ ecs: { mode: "forward" } })),
        edns: { options },
      });
      const codes = decodeResponse(req, res)!.opt!.options.map((o) => o.code);
      assert.deepEqual(codes, sent ? [EDNS_CLIENT_SUBNET] : []);
    });
  }
});

Deno.test("upstream builds its resolver from the settings and keeps it for equal ones", async () => {
  const built: unknown[] = [];
  const resolver = scriptedResolver(answered(wwwAnswer));
  const stage = createUpstreamStage({
    resolver: (settings) => {
      built.push(settings);
      return resolver;
    },
    logger: memoryLogger(),
  });
  await serve(stage, "www.example.org. A");
  await serve(stage, "www.example.org. A", {
    snapshot: structuredClone(snapshot),
  });
  assert.equal(built.length, 1);
  assert.equal(resolver.closed, 0);
  await stage.close();
  assert.equal(resolver.closed, 1);
});

Deno.test("upstream replaces its resolver when the settings change and closes the old one", async () => {
  const resolvers = [
    scriptedResolver(answered(wwwAnswer)),
    scriptedResolver(answered(wwwAnswer)),
  ];
  let next = 0;
  const stage = createUpstreamStage({
    resolver: () => resolvers[next++]!,
    logger: memoryLogger(),
  });
  await serve(stage, "www.example.org. A");
  const changed = snapshotWith(
    upstreamsOf({ groups: { default: { servers: ["192.0.2.54"] } } }),
  );
  await serve(stage, "www.example.org. A", { snapshot: changed });
  assert.deepEqual(resolvers.map((r) => [r.calls.length, r.closed]), [
    [1, 1],
    [1, 0],
  ]);
  await stage.close();
  assert.equal(resolvers[1]!.closed, 1);
});

Deno.test("upstream closes a replaced resolver only after its queries settle", async () => {
  let release!: (r: UpstreamResult) => void;
  const slow = scriptedResolver(answered(wwwAnswer));
  slow.resolve = () => new Promise((resolve) => (release = resolve));
  const fresh = scriptedResolver(answered(wwwAnswer));
  const queue = [slow, fresh];
  const stage = createUpstreamStage({
    resolver: () => queue.shift()!,
    logger: memoryLogger(),
  });
  const pending = serve(stage, "www.example.org. A");
  const changed = snapshotWith(
    upstreamsOf({ groups: { default: { servers: ["192.0.2.54"] } } }),
  );
  await serve(stage, "www.example.org. A", { snapshot: changed });
  assert.equal(slow.closed, 0);
  release(answered(wwwAnswer));
  assert.equal((await pending).res.status, "forwarded");
  assert.equal(slow.closed, 1);
  await stage.close();
});

Deno.test("upstream leaves a given resolver open on close", async () => {
  const { resolver, stage } = stageWith(answered(wwwAnswer));
  await stage.close();
  assert.equal(resolver.closed, 0);
});

Deno.test("upstream leaves out answer records for names off the question's chain", async () => {
  const poisoned = upstreamAnswer("www.example.org. A", {
    answer: rrsets([
      "www.example.org. 300 IN A 192.0.2.1",
      "www.victim.example. 86400 IN A 198.51.100.6",
    ]),
  });
  const { stage } = stageWith(answered(poisoned));
  const { req, res } = await serve(stage, "www.example.org. A");
  assert.equal(res.status, "forwarded");
  assert.deepEqual(decodeResponse(req, res)!.answer, [
    "www.example.org. 300 IN A 192.0.2.1",
  ]);
});

Deno.test("upstream passes a failing upstream's Extended DNS Errors on after its own", async () => {
  const bogus = extendedError(6, "validation failure"); // 6: DNSSEC Bogus
  const huge = extendedError(0, "x".repeat(400)); // too long: left out
  const { stage } = stageWith({
    ok: false,
    reason: "error",
    detail: "192.0.2.53: answered SERVFAIL",
    extendedErrors: [bogus, huge],
  });
  const { res } = await serve(stage, "www.example.org. A", { edns: {} });
  const edes = res.message?.edns?.options?.filter((o) =>
    o.code === EDNS_OPTION.EDE
  ).map((o) => [...o.data]);
  assert.deepEqual(edes, [
    [...extendedError(23, 'upstream group "default" failed')],
    [...bogus],
  ]);
});

Deno.test("upstream asks no one for a query from an overloaded listener: nothing over UDP, SERVFAIL over TCP", async () => {
  const { resolver, stage } = stageWith(answered(wwwAnswer));
  const plain = requestFrom("www.example.org. A", { snapshot });
  const req = {
    ...plain,
    client: { ...plain.client, overloaded: true as const },
  };
  const res = await stage.serve(req, () => {
    throw new Error("the upstream stage never calls next");
  });
  assert.equal(res.drop, true);
  assert.equal(res.status, "overloaded");
  assert.equal(res.unlogged, true);
  assert.equal(resolver.calls.length, 0);
  // Over TCP SERVFAIL at once: the client would not ask again on its
  // connection, and would wait out its whole timeout.
  const tcp = await stage.serve({
    ...req,
    client: { ...req.client, transport: "tcp" },
  }, () => {
    throw new Error("the upstream stage never calls next");
  });
  assert.equal(tcp.status, "overloaded");
  assert.equal(tcp.message?.rcode, RCODE.SERVFAIL);
  assert.equal(tcp.unlogged, true);
  assert.equal(resolver.calls.length, 0);
});

Deno.test("upstream logs why a group failed, once per 30 s however often", async () => {
  const logger = memoryLogger();
  const stage = createUpstreamStage({
    resolver: scriptedResolver({
      ok: false,
      reason: "error",
      detail: "tls://192.0.2.53: certificate has expired",
    }),
    logger,
  });
  for (let id = 1; id <= 3; id++) {
    const res = await stage.serve(
      requestFrom("www.example.org. A", { snapshot, id }),
      () => {
        throw new Error("the upstream stage never calls next");
      },
    );
    assert.equal(res.status, "servfail_upstream");
  }
  const lines = logger.lines.filter((l) => /Upstream group/.test(l));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /certificate has expired/);
  await stage.close();
});
