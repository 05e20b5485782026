import assert from "node:assert/strict";
import { ratelimitSchema } from "./schema_resolver.ts";

function accepts(input: Record<string, unknown>): boolean {
  return ratelimitSchema.safeParse(input).success;
}

Deno.test("ratelimitSchema takes prefix lengths from 0 to the address width", async (t) => {
  for (const [family, bits] of [["ipv4", 32], ["ipv6", 128]] as const) {
    await t.step(family, () => {
      const lengths = Array.from({ length: 1000 }, (_, n) => n);
      const taken = lengths.filter((n) =>
        accepts({ [family]: { [String(n)]: 600 } })
      );
      assert.deepEqual(taken, lengths.slice(0, bits + 1));
    });
  }
});

Deno.test("ratelimitSchema refuses prefix lengths not written canonically", () => {
  // "032" next to "32" would be a second level on the same bucket.
  const spellings = ["032", "00", "+8", "-0", "8.0", "1e1", "0x8", " 8", ""];
  const taken = spellings.filter((key) =>
    accepts({ ipv4: { [key]: 600 } }) || accepts({ ipv6: { [key]: 600 } })
  );
  assert.deepEqual(taken, []);
});

Deno.test("ratelimitSchema needs a bucket per limited prefix length", async (t) => {
  const cases = [
    { name: "the defaults: 3 for ipv6", input: {}, floor: 3 },
    {
      name: "ipv4 with more lengths than ipv6",
      input: { ipv4: { "32": 1, "24": 1, "16": 1, "8": 1 } },
      floor: 4,
    },
    {
      name: "lengths limited to 0 need none",
      input: {
        ipv4: { "32": 1, "24": 1, "16": 0 },
        ipv6: { "128": 1, "64": 0, "56": 0 },
      },
      floor: 2,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.equal(accepts({ ...c.input, maxBuckets: c.floor }), true);
      const below = ratelimitSchema.safeParse({
        ...c.input,
        maxBuckets: c.floor - 1,
      });
      assert.deepEqual(below.error?.issues.map((i) => i.path), [[
        "maxBuckets",
      ]]);
    });
  }
});
