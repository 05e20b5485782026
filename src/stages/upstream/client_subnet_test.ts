import assert from "node:assert/strict";
import { clientSubnetProblem, encodeClientSubnet } from "./client_subnet.ts";

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

Deno.test("encodeClientSubnet masks the address to the prefix", () => {
  const data = encodeClientSubnet(1, 9, [192, 255, 2, 1]);
  assert.deepEqual([...data], [0, 1, 9, 0, 192, 0x80]);
  assert.equal(clientSubnetProblem(data), undefined);
});
