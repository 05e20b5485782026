import assert from "node:assert/strict";
import { clientSubnetEcho, clientSubnetProblem } from "./client_subnet.ts";
import { EDNS_OPTION } from "./constants.ts";
import { parseQuery } from "./query.ts";
import { encodeQuery } from "../../testing/query_bytes.ts";

Deno.test("clientSubnetEcho gives the client its own subnet with the SCOPE answered (RFC 7871 §7.2.2)", async (t) => {
  const cases: {
    name: string;
    client?: number[];
    answered?: number[];
    want: number[] | undefined;
  }[] = [
    {
      name: "the subnet the client sent, SCOPE as answered",
      client: [0, 1, 24, 0, 8, 8, 4],
      answered: [0, 1, 24, 16, 8, 8, 4],
      want: [0, 1, 24, 16, 8, 8, 4],
    },
    {
      name: "a shorter prefix sent: the client's own option",
      client: [0, 1, 32, 0, 8, 8, 4, 4],
      answered: [0, 1, 24, 20, 8, 8, 4],
      want: [0, 1, 32, 20, 8, 8, 4, 4],
    },
    {
      name: "SCOPE beyond the prefix sent is cut to it",
      client: [0, 1, 32, 0, 8, 8, 4, 4],
      answered: [0, 1, 24, 32, 8, 8, 4],
      want: [0, 1, 32, 24, 8, 8, 4, 4],
    },
    {
      name: "a /0 sent in place of a private subnet: SCOPE 0",
      client: [0, 1, 16, 0, 10, 1],
      answered: [0, 1, 0, 0],
      want: [0, 1, 16, 0, 10, 1],
    },
    {
      name: "a /16 sent, bits within the last octet",
      client: [0, 1, 20, 0, 8, 8, 0x40],
      answered: [0, 1, 18, 18, 8, 8, 0x40],
      want: [0, 1, 20, 18, 8, 8, 0x40],
    },
    {
      name: "none sent: none back",
      client: [0, 1, 24, 0, 8, 8, 4],
      want: undefined,
    },
    {
      name: "the client sent none",
      answered: [0, 1, 24, 0, 8, 8, 4],
      want: undefined,
    },
    {
      name: "another subnet answered: none",
      client: [0, 1, 24, 0, 8, 8, 4],
      answered: [0, 1, 24, 24, 8, 8, 5],
      want: undefined,
    },
    {
      name: "a longer prefix answered: none",
      client: [0, 1, 16, 0, 8, 8],
      answered: [0, 1, 24, 24, 8, 8, 4],
      want: undefined,
    },
    {
      name: "another family answered: none",
      client: [0, 1, 0, 0],
      answered: [0, 2, 0, 0],
      want: undefined,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const query = parseQuery(encodeQuery("www.example.org. A", {
        edns: {
          options: c.client === undefined ? [] : [{
            code: EDNS_OPTION.CLIENT_SUBNET,
            data: new Uint8Array(c.client),
          }],
        },
      }));
      const echo = clientSubnetEcho(
        query,
        c.answered && new Uint8Array(c.answered),
      );
      assert.deepEqual(echo && [...echo], c.want);
    });
  }
});

Deno.test("clientSubnetProblem accepts well-formed options and names bad ones", async (t) => {
  const cases: { name: string; data: number[]; problem?: RegExp }[] = [
    { name: "IPv4 /24", data: [0, 1, 24, 0, 198, 51, 100] },
    { name: "IPv6 /0", data: [0, 2, 0, 0] },
    { name: "too short", data: [0, 1, 24], problem: /shorter than 4/ },
    { name: "family 3", data: [0, 3, 0, 0], problem: /family 3/ },
    { name: "IPv4 /33", data: [0, 1, 33, 0, 1, 2, 3, 4, 5], problem: /\/33/ },
    { name: "scope set", data: [0, 1, 8, 8, 10], problem: /scope/ },
    { name: "octets missing", data: [0, 1, 24, 0, 198], problem: /needs 3/ },
    {
      name: "bits past the prefix",
      data: [0, 1, 20, 0, 8, 8, 0xff],
      problem: /beyond/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const problem = clientSubnetProblem(new Uint8Array(c.data));
      if (c.problem === undefined) assert.equal(problem, undefined);
      else assert.match(problem ?? "", c.problem);
    });
  }
});
