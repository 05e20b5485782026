/**
 * EDNS Client Subnet end to end, over real UDP: the standard cache, the
 * upstream stage and the real resolver, against a scripted upstream that
 * reports the option it got (RFC 7871 §7.1.1 on the way out, §7.2.2 on the
 * way back, on a miss and on a hit).
 */
import assert from "node:assert/strict";
import type { QueryInfo } from "../../dns/wire/query.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { memoryLogger } from "../../log/logger.ts";
import type { Request } from "../../pipeline/request.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createResolver } from "../../upstream/resolver.ts";
import {
  type ScriptedServer,
  startUdpUpstream,
  urlOf,
} from "../../upstream/testdata/scripted_upstream.ts";
import { createStandardCacheStage } from "../data_plane.ts";
import { EDNS_CLIENT_SUBNET } from "./client_subnet.ts";
import {
  requestFrom,
  rrsets,
  snapshotWith,
  upstreamsOf,
} from "./testdata/upstream_fixtures.ts";
import { createUpstreamStage } from "./upstream.ts";

/** The ECS option data in `options`, as hex, or "-" for none. */
function subnetHex(
  options: readonly { code: number; data: Uint8Array }[] | undefined,
): string {
  const found = options?.find((o) => o.code === EDNS_CLIENT_SUBNET);
  if (found === undefined) return "-";
  return [...found.data].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * An upstream that answers every A query, echoing the ECS option it got
 * with SCOPE = SOURCE when `ecsAware`, or with no option at all.
 */
function startEcsUpstream(ecsAware: boolean): ScriptedServer {
  return startUdpUpstream((query: QueryInfo) => {
    const got = query.edns?.options.find((o) => o.code === EDNS_CLIENT_SUBNET)
      ?.data;
    const echo = got?.slice();
    if (echo !== undefined) echo[3] = echo[2]!;
    const message = encodeResponse({
      id: query.id,
      opcode: 0,
      rcode: 0,
      rd: true,
      ra: true,
      question: query.question!,
      answer: rrsets([`${query.question!.name} 300 IN A 192.0.2.1`]),
      edns: {
        udpSize: 1232,
        options: ecsAware && echo !== undefined
          ? [{ code: EDNS_CLIENT_SUBNET, data: echo }]
          : [],
      },
    }, 65535);
    return [{ message }];
  });
}

interface Case {
  name: string;
  ecs: Record<string, unknown>;
  address: string;
  /** The client's option, hex ("" for none). */
  client: string;
  ecsAware?: boolean;
  /** What the upstream must see, and what the client must get back. */
  upstreamSaw: string;
  echoed: string;
}

const cases: Case[] = [
  {
    name: "add keeps a client's shorter /16 and echoes it",
    ecs: { mode: "add" },
    address: "1.2.3.4",
    client: "000110000102",
    upstreamSaw: "000110000102",
    echoed: "000110100102",
  },
  {
    name: "add cuts a client's /32 to ipv4Prefix, SCOPE to the prefix sent",
    ecs: { mode: "add" },
    address: "8.8.4.4",
    client: "0001200008080404",
    upstreamSaw: "00011800080804",
    echoed: "0001201808080404",
  },
  {
    name: "add sends /0 for a client's private subnet, echoes SCOPE 0",
    ecs: { mode: "add" },
    address: "8.8.4.4",
    client: "000118000a0102",
    upstreamSaw: "00010000",
    echoed: "000118000a0102",
  },
  {
    name: "add keeps a client's /0 opt-out",
    ecs: { mode: "add" },
    address: "8.8.4.4",
    client: "00010000",
    upstreamSaw: "00010000",
    echoed: "00010000",
  },
  {
    name: "forward cuts a client's /32 to ipv4Prefix",
    ecs: { mode: "forward", ipv4Prefix: 20 },
    address: "192.168.1.9",
    client: "0001200008080404",
    upstreamSaw: "00011400080800",
    echoed: "0001201408080404",
  },
  {
    name: "an upstream without ECS: the client's option with SCOPE 0",
    ecs: { mode: "forward" },
    address: "8.8.4.4",
    client: "00011800080804",
    ecsAware: false,
    upstreamSaw: "00011800080804",
    echoed: "00011800080804",
  },
  {
    name: "add, a client without an option gets none back",
    ecs: { mode: "add" },
    address: "8.8.4.4",
    client: "",
    upstreamSaw: "00011800080804",
    echoed: "-",
  },
  {
    name: "strip sends none and echoes none",
    ecs: {},
    address: "8.8.4.4",
    client: "00011800080804",
    upstreamSaw: "-",
    echoed: "-",
  },
];

function octetsOf(hex: string): Uint8Array {
  return new Uint8Array(hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
}

Deno.test("EDNS Client Subnet is honoured upstream and echoed on a miss and a hit", async (t) => {
  for (const c of cases) {
    await t.step(c.name, async () => {
      const server = startEcsUpstream(c.ecsAware ?? true);
      const logger = memoryLogger();
      const upstream = createUpstreamStage({
        resolver: (settings) => createResolver(settings, { logger }),
        logger,
      });
      try {
        const snapshot = snapshotWith(upstreamsOf({
          groups: { default: { servers: [urlOf("udp", server)] } },
          ecs: c.ecs,
        }));
        const cache = createStandardCacheStage();
        const next = (req: Request) =>
          upstream.serve(req, () => {
            throw new Error("the upstream stage never calls next");
          });
        const ask = () =>
          cache.serve(
            requestFrom("www.example.org. A", {
              address: c.address,
              snapshot,
              edns: {
                udpSize: 1232,
                options: c.client === ""
                  ? []
                  : [{ code: EDNS_CLIENT_SUBNET, data: octetsOf(c.client) }],
              },
            }),
            next,
          );
        const miss = await ask();
        const hit = await ask();
        assert.equal(server.seen.length, 1, "the second query is a hit");
        assert.equal(hit.status, "cached");
        assert.equal(
          subnetHex(server.seen[0]!.query.edns?.options),
          c.upstreamSaw,
        );
        assert.equal(
          subnetHex(decodeAnswer(miss.wire!).opt?.options),
          c.echoed,
        );
        assert.equal(subnetHex(decodeAnswer(hit.wire!).opt?.options), c.echoed);
      } finally {
        await upstream.close();
        await server.close();
      }
    });
  }
});

Deno.test("EDNS Client Subnet: clients sent upstream as one subnet share the answer, each gets its own option", async () => {
  const server = startEcsUpstream(true);
  const logger = memoryLogger();
  const upstream = createUpstreamStage({
    resolver: (settings) => createResolver(settings, { logger }),
    logger,
  });
  try {
    const snapshot = snapshotWith(upstreamsOf({
      groups: { default: { servers: [urlOf("udp", server)] } },
      ecs: { mode: "forward" },
    }));
    const cache = createStandardCacheStage();
    const next = (req: Request) =>
      upstream.serve(req, () => {
        throw new Error("the upstream stage never calls next");
      });
    const ask = (client: string) =>
      cache.serve(
        requestFrom("www.example.org. A", {
          snapshot,
          edns: {
            options: [{ code: EDNS_CLIENT_SUBNET, data: octetsOf(client) }],
          },
        }),
        next,
      );
    // Both are sent as 8.8.4.0/24; asked together, they wait on one query.
    const [whole, host] = await Promise.all([
      ask("00011800080804"),
      ask("0001200008080404"),
    ]);
    const again = await ask("0001200008080404");
    assert.equal(server.seen.length, 1);
    assert.equal(
      subnetHex(decodeAnswer(whole.wire!).opt?.options),
      "00011818080804",
    );
    assert.equal(
      subnetHex(decodeAnswer(host.wire!).opt?.options),
      "0001201808080404",
    );
    assert.equal(again.status, "cached");
    assert.equal(
      subnetHex(decodeAnswer(again.wire!).opt?.options),
      "0001201808080404",
    );
  } finally {
    await upstream.close();
    await server.close();
  }
});
