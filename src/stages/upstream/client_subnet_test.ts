import assert from "node:assert/strict";
import { clientSubnetProblem } from "../../dns/wire/client_subnet.ts";
import {
  clientSubnetFor,
  EDNS_CLIENT_SUBNET,
  encodeClientSubnet,
} from "./client_subnet.ts";
import { requestFrom, upstreamsOf } from "./testdata/upstream_fixtures.ts";

Deno.test("encodeClientSubnet masks the address to the prefix", () => {
  const data = encodeClientSubnet(1, 9, [192, 255, 2, 1]);
  assert.deepEqual([...data], [0, 1, 9, 0, 192, 0x80]);
  assert.equal(clientSubnetProblem(data), undefined);
});

Deno.test("clientSubnetFor honours the client's own option (RFC 7871 §7.1.1)", async (t) => {
  const cases: {
    name: string;
    ecs: Record<string, unknown>;
    address: string;
    client?: number[];
    want: number[] | undefined;
  }[] = [
    {
      name: "add keeps a client's /16, shorter than ipv4Prefix",
      ecs: { mode: "add" },
      address: "1.2.3.4",
      client: [0, 1, 16, 0, 1, 2],
      want: [0, 1, 16, 0, 1, 2],
    },
    {
      name: "add cuts a client's /32 to ipv4Prefix and masks it",
      ecs: { mode: "add", ipv4Prefix: 20 },
      address: "1.2.3.4",
      client: [0, 1, 32, 0, 8, 8, 255, 4],
      want: [0, 1, 20, 0, 8, 8, 0xf0],
    },
    {
      name: "add takes the client's address, not the socket's",
      ecs: { mode: "add" },
      address: "192.168.1.9",
      client: [0, 1, 24, 0, 8, 8, 4],
      want: [0, 1, 24, 0, 8, 8, 4],
    },
    {
      name: "add cuts a client's IPv6 /64 to ipv6Prefix",
      ecs: { mode: "add" },
      address: "2a00:1450:4001:81f::200e",
      client: [0, 2, 64, 0, 0x2a, 0, 0x14, 0x50, 0x40, 1, 8, 0x1f],
      want: [0, 2, 56, 0, 0x2a, 0, 0x14, 0x50, 0x40, 1, 8],
    },
    {
      name: "add sends /0 for a client's private subnet",
      ecs: { mode: "add" },
      address: "8.8.4.4",
      client: [0, 1, 16, 0, 192, 168],
      want: [0, 1, 0, 0],
    },
    {
      name: "add sends /0 for a client's ULA subnet",
      ecs: { mode: "add" },
      address: "2a00:1450:4001:81f::200e",
      client: [0, 2, 48, 0, 0xfd, 0, 0, 0, 0, 1],
      want: [0, 2, 0, 0],
    },
    {
      name: "add keeps an IPv6 /0 opt-out",
      ecs: { mode: "add" },
      address: "8.8.4.4",
      client: [0, 2, 0, 0],
      want: [0, 2, 0, 0],
    },
    {
      name: "forward cuts a client's /32 to ipv4Prefix",
      ecs: { mode: "forward" },
      address: "8.8.4.4",
      client: [0, 1, 32, 0, 8, 8, 4, 4],
      want: [0, 1, 24, 0, 8, 8, 4],
    },
    {
      name: "forward passes a private subnet on: the operator chose to",
      ecs: { mode: "forward" },
      address: "8.8.4.4",
      client: [0, 1, 24, 0, 10, 1, 2],
      want: [0, 1, 24, 0, 10, 1, 2],
    },
    {
      name: "add without a client option still uses the socket's address",
      ecs: { mode: "add" },
      address: "8.8.4.4",
      want: [0, 1, 24, 0, 8, 8, 4],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const req = requestFrom("www.example.org. A", {
        address: c.address,
        edns: {
          options: c.client === undefined ? [] : [{
            code: EDNS_CLIENT_SUBNET,
            data: new Uint8Array(c.client),
          }],
        },
      });
      const decision = clientSubnetFor(req, upstreamsOf({ ecs: c.ecs }).ecs);
      assert.ok(decision.ok);
      assert.deepEqual(decision.option && [...decision.option], c.want);
    });
  }
});
