import assert from "node:assert/strict";
import type { Request } from "../pipeline/request.ts";
import { requestFor } from "../testing/fixtures.ts";
import { decodeAnswer } from "../testing/query_bytes.ts";
import { forwarded, ScriptedUpstream } from "./cache/testdata/answers.ts";
import { createStandardCacheStage } from "./data_plane.ts";
import {
  answered,
  rrsets,
  scriptedResolver,
  snapshotWith,
  upstreamAnswer,
  upstreamsOf,
} from "./upstream/testdata/upstream_fixtures.ts";
import { createUpstreamStage } from "./upstream/upstream.ts";
import { memoryLogger } from "../log/logger.ts";
import {
  clientSubnetCacheScope,
  EDNS_CLIENT_SUBNET,
  MALFORMED_SUBNET_SCOPE,
} from "./upstream/client_subnet.ts";
import { upstreamCacheScope } from "./upstream/cache_scope.ts";
import type { PolicyDecision } from "../blocking/blocking_snapshot.ts";

/** ECS option data: IPv4, /24, scope 0, the first three octets. */
function subnet(a: number, b: number, c: number): Uint8Array {
  return new Uint8Array([0, 1, 24, 0, a, b, c]);
}

/** `option` with its SCOPE PREFIX-LENGTH set to `scope`. */
function withScope(option: Uint8Array, scope: number): Uint8Array {
  const out = option.slice();
  out[3] = scope;
  return out;
}

const ROUTED = upstreamsOf({
  groups: {
    default: { servers: ["192.0.2.53"] },
    "internal-ad": { servers: ["10.0.0.5"] },
    kids: { servers: ["192.0.2.99"] },
  },
  conditional: { "corp.example.": "internal-ad" },
});

function ask(mode: string, ecs?: Uint8Array, address = "192.0.2.7"): Request {
  const req = requestFor("www.example.org. A", {
    snapshot: snapshotWith(upstreamsOf({ ecs: { mode } })),
    edns: {
      udpSize: 1232,
      ...(ecs && { options: [{ code: EDNS_CLIENT_SUBNET, data: ecs }] }),
    },
  });
  (req.client as { address: string }).address = address;
  return req;
}

/**
 * A request for `question` under ROUTED, as the stages before the cache
 * leave it: the forward zone the authoritative stage matched (`zone`, to
 * `group`), the client's Policy group.
 */
function routed(
  question: string,
  opts: { zone?: string; group?: string; policyGroup?: string } = {},
): Request {
  const req = requestFor(question, { snapshot: snapshotWith(ROUTED) });
  if (opts.zone !== undefined) {
    req.zone = opts.zone;
    req.upstreamGroup = opts.group ?? "default";
  }
  if (opts.policyGroup !== undefined) {
    req.policy = { ...POLICY, upstreamGroup: opts.policyGroup };
  }
  return req;
}

const POLICY: PolicyDecision = {
  policies: [],
  blockLists: [],
  allowLists: [],
  allowOnly: false,
  response: { mode: "zeroIP" } as PolicyDecision["response"],
  queryLog: true,
};

/** Asks `req` twice through the standard cache; how many reached the upstream. */
async function upstreamCallsForTwo(make: () => Request): Promise<number> {
  const stage = createStandardCacheStage();
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, { answer: [`${req.qname} 300 IN A 192.0.2.1`] })
  );
  await stage.serve(make(), upstream.next);
  await stage.serve(make(), upstream.next);
  return upstream.calls;
}

/** An upstream whose A record tells which client subnet it was asked for. */
function subnetAwareUpstream(): ScriptedUpstream {
  return new ScriptedUpstream((req) => {
    const sent = req.query.edns?.options.find((o) =>
      o.code === EDNS_CLIENT_SUBNET
    );
    const third = sent?.data[6] ?? 0;
    return forwarded(req, {
      answer: [`www.example.org. 300 IN A 192.0.2.${third}`],
    });
  });
}

async function addressOf(
  stage: ReturnType<typeof createStandardCacheStage>,
  upstream: ScriptedUpstream,
  req: Request,
): Promise<string> {
  const res = await stage.serve(req, upstream.next);
  return decodeAnswer(res.wire!).answer[0]!.split(" ").at(-1)!;
}

Deno.test("standard cache keeps ECS answers per client subnet", async () => {
  const stage = createStandardCacheStage();
  const upstream = subnetAwareUpstream();
  assert.equal(
    await addressOf(stage, upstream, ask("forward", subnet(198, 51, 100))),
    "192.0.2.100",
  );
  assert.equal(
    await addressOf(stage, upstream, ask("forward", subnet(203, 0, 113))),
    "192.0.2.113",
  );
  assert.equal(upstream.calls, 2, "another subnet is a miss");
  assert.equal(
    await addressOf(stage, upstream, ask("forward", subnet(198, 51, 100))),
    "192.0.2.100",
  );
  assert.equal(await addressOf(stage, upstream, ask("forward")), "192.0.2.0");
  assert.equal(upstream.calls, 3, "same subnet hits; no ECS is its own entry");
  assert.equal(stage.stats().hits, 1);
});

/** The ECS options in `wire`'s OPT record, as arrays of octets. */
function subnetsIn(wire: Uint8Array): number[][] {
  return (decodeAnswer(wire).opt?.options ?? [])
    .filter((o) => o.code === EDNS_CLIENT_SUBNET).map((o) => [...o.data]);
}

Deno.test("standard cache gives a hit the upstream's client subnet, for clients that sent it", async () => {
  // An upstream that answers for the subnet it was sent with SCOPE 16.
  const resolver = scriptedResolver(({ request }) =>
    answered(upstreamAnswer("www.example.org. A", {
      answer: rrsets(["www.example.org. 300 IN A 192.0.2.1"]),
      edns: {
        udpSize: 1232,
        options: request.clientSubnet === undefined ? [] : [{
          code: EDNS_CLIENT_SUBNET,
          data: withScope(request.clientSubnet, 16),
        }],
      },
    }))
  );
  const upstream = createUpstreamStage({ resolver, logger: memoryLogger() });
  const next = (req: Request) =>
    upstream.serve(req, () => {
      throw new Error("the upstream stage never calls next");
    });
  const stage = createStandardCacheStage();
  const scoped = [...withScope(subnet(198, 51, 100), 16)];
  const miss = await stage.serve(ask("forward", subnet(198, 51, 100)), next);
  assert.deepEqual(subnetsIn(miss.wire!), [scoped]);
  const hit = await stage.serve(ask("forward", subnet(198, 51, 100)), next);
  assert.equal(hit.status, "cached");
  assert.deepEqual(subnetsIn(hit.wire!), [scoped], "a hit echoes it too");
  assert.equal(resolver.calls.length, 1);
  // `add`: a client without an option gets none back; one that sent the
  // subnet its address gives shares the entry and gets it.
  const added = () => ask("add", undefined, "8.8.4.4");
  const first = await stage.serve(added(), next);
  const again = await stage.serve(added(), next);
  assert.equal(again.status, "cached");
  assert.deepEqual(subnetsIn(first.wire!), []);
  assert.deepEqual(subnetsIn(again.wire!), []);
  const own = await stage.serve(ask("add", subnet(8, 8, 4), "8.8.4.4"), next);
  assert.equal(own.status, "cached");
  assert.deepEqual(
    subnetsIn(own.wire!),
    [[...withScope(subnet(8, 8, 4), 16)]],
    "a client that sent the subnet used gets it, SCOPE as answered",
  );
});

Deno.test("standard cache shares answers when ECS is stripped", async () => {
  const stage = createStandardCacheStage();
  const upstream = subnetAwareUpstream();
  await addressOf(stage, upstream, ask("strip", subnet(198, 51, 100)));
  await addressOf(stage, upstream, ask("strip", subnet(203, 0, 113)));
  assert.equal(upstream.calls, 1);
});

Deno.test("standard cache: conditional forwarding and forward zones below the root bypass it", async () => {
  assert.equal(
    await upstreamCallsForTwo(() => routed("dc1.corp.example. A")),
    2,
    "a conditional domain",
  );
  assert.equal(
    await upstreamCallsForTwo(() =>
      routed("host.lab.example. A", { zone: "lab.example.", group: "kids" })
    ),
    2,
    "a forward zone",
  );
  assert.equal(
    await upstreamCallsForTwo(() =>
      routed("www.example.org. A", { zone: "." })
    ),
    1,
    "the root forward zone is the catch-all, cached",
  );
  assert.equal(
    await upstreamCallsForTwo(() => routed("www.example.org. A")),
    1,
    "the default group",
  );
});

Deno.test("standard cache: a conditional domain never gets an answer stored before the rule", async () => {
  const stage = createStandardCacheStage();
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, { answer: [`${req.qname} 300 IN A 192.0.2.1`] })
  );
  const before = requestFor("dc1.corp.example. A", {
    snapshot: snapshotWith(upstreamsOf({})),
  });
  await stage.serve(before, upstream.next);
  await stage.serve(routed("dc1.corp.example. A"), upstream.next);
  assert.equal(upstream.calls, 2);
});

Deno.test("standard cache keeps a Policy group's answers for that group", async () => {
  const stage = createStandardCacheStage();
  const upstream = new ScriptedUpstream((req) => {
    const third = req.policy?.upstreamGroup === "kids" ? 99 : 1;
    return forwarded(req, {
      answer: [`www.example.org. 300 IN A 192.0.2.${third}`],
    });
  });
  const kids = () => routed("www.example.org. A", { policyGroup: "kids" });
  const others = () => routed("www.example.org. A", { zone: "." });
  assert.equal(await addressOf(stage, upstream, kids()), "192.0.2.99");
  assert.equal(await addressOf(stage, upstream, others()), "192.0.2.1");
  assert.equal(await addressOf(stage, upstream, kids()), "192.0.2.99");
  assert.equal(await addressOf(stage, upstream, others()), "192.0.2.1");
  assert.equal(upstream.calls, 2, "each group asked once, then hits");
});

Deno.test("upstreamCacheScope names the group and the subnet", () => {
  const req = routed("www.example.org. A", { policyGroup: "kids and teens" });
  assert.equal(upstreamCacheScope(req), "group=kids%20and%20teens");
  assert.equal(
    upstreamCacheScope(ask("forward", subnet(198, 51, 100))),
    "ecs=00011800c63364",
  );
  assert.equal(upstreamCacheScope(routed("dc1.corp.example. A")), false);
  assert.equal(upstreamCacheScope(routed("www.example.org. A")), "");
});

Deno.test("clientSubnetCacheScope is the option sent upstream", async (t) => {
  const cases: { name: string; req: Request; want: string | undefined }[] = [
    { name: "strip", req: ask("strip", subnet(198, 51, 100)), want: undefined },
    { name: "forward, no option", req: ask("forward"), want: undefined },
    {
      name: "forward, the client's option",
      req: ask("forward", subnet(198, 51, 100)),
      want: "00011800c63364",
    },
    {
      name: "add, a public client's /24",
      req: ask("add", undefined, "8.8.4.4"),
      want: "00011800080804",
    },
    {
      name: "add, a private client sends none",
      req: ask("add", undefined, "10.1.2.3"),
      want: undefined,
    },
    {
      name: "forward, a malformed option never hits",
      req: ask("forward", new Uint8Array([0, 1, 24])),
      want: MALFORMED_SUBNET_SCOPE,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.equal(clientSubnetCacheScope(c.req), c.want);
    });
  }
});

Deno.test("standard cache keeps the whole answer when a client got it truncated", async () => {
  const records = Array.from(
    { length: 40 },
    (_, i) => `www.example.org. 300 IN A 192.0.2.${i + 1}`,
  );
  const resolver = scriptedResolver(
    answered(upstreamAnswer("www.example.org. A", { answer: rrsets(records) })),
  );
  const upstream = createUpstreamStage({ resolver, logger: memoryLogger() });
  const next = (req: Request) =>
    upstream.serve(req, () => {
      throw new Error("the upstream stage never calls next");
    });
  const stage = createStandardCacheStage();
  const ask = (transport: "udp" | "tcp") =>
    requestFor("www.example.org. A", {
      snapshot: snapshotWith(upstreamsOf({})),
      transport,
    });
  const small = await stage.serve(ask("udp"), next);
  assert.equal(decodeAnswer(small.wire!).tc, true, "40 A records exceed 512");
  const retry = await stage.serve(ask("tcp"), next);
  assert.equal(retry.status, "cached", "the retry over TCP hits");
  assert.equal(decodeAnswer(retry.wire!).answer.length, 40);
  assert.equal(resolver.calls.length, 1);
});
