import assert from "node:assert/strict";
import {
  cacheSchema,
  querylogSchema,
  ratelimitSchema,
  upstreamsSchema,
} from "./schema_resolver.ts";

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

const groups = {
  default: { servers: ["192.0.2.1"] },
  corp: { servers: ["10.0.0.5"] },
};

function conditionalIssues(key: string, group = "corp"): string[] {
  const got = upstreamsSchema.safeParse({
    groups,
    conditional: { [key]: group },
  });
  return (got.error?.issues ?? []).map((i) =>
    `${i.path.join(" ")}: ${i.message}`
  );
}

Deno.test("upstreamsSchema takes conditional keys that are domain names", async (t) => {
  const keys = [
    "corp.example",
    "corp.example.",
    "Corp.Example",
    "_msdcs.corp.example",
    "10.in-addr.arpa",
    ".",
    // dnsmasq's historical spelling; routing drops the dot.
    ".corp.example",
  ];
  for (const key of keys) {
    await t.step(key, () => assert.deepEqual(conditionalIssues(key), []));
  }
});

Deno.test("upstreamsSchema refuses conditional keys that would never match, naming the key", async (t) => {
  const cases: [string, RegExp][] = [
    [
      "*.corp.example",
      /^conditional \*\.corp\.example: is a wildcard, .*so write "corp\.example"$/,
    ],
    [
      "corp..example",
      /^conditional corp\.\.example: is not a domain name: .*empty label/,
    ],
    ["..corp.example", /: is not a domain name: .*empty label/],
    ["..", /: is not a domain name: .*empty label/],
    ["corp.example..", /: is not a domain name: .*empty label/],
    ["*corp.example", /: is not a domain name: .*"\*"/],
    ["corp example", /: is not a domain name: .*whitespace/],
    ["bücher.example", /: is not a domain name: .*punycode/],
    [`${"a".repeat(64)}.example`, /: is not a domain name: .*longer than 63/],
  ];
  for (const [key, want] of cases) {
    await t.step(key, () => {
      const issues = conditionalIssues(key);
      assert.equal(issues.length, 1, issues.join("; "));
      assert.match(issues[0]!, want);
    });
  }
});

Deno.test("upstreamsSchema reports a bad conditional key and a missing group both", () => {
  assert.equal(conditionalIssues("*.corp.example", "nope").length, 2);
  assert.deepEqual(conditionalIssues("corp.example", "nope"), [
    'conditional corp.example: names no upstream group "nope" (groups: default, corp)',
  ]);
});

Deno.test("upstreamsSchema refuses a bootstrap entry that is not a plain IP server, naming it", async (t) => {
  const entries = ["dns.google", "tls://127.0.0.1:853", "1.1.1.1:99999"];
  for (const entry of entries) {
    await t.step(entry, () => {
      const got = upstreamsSchema.safeParse({
        groups,
        bootstrap: ["9.9.9.9", entry],
      });
      const issues = (got.error?.issues ?? []).map((i) =>
        `${i.path.join(" ")}: ${i.message}`
      );
      assert.equal(issues.length, 1, issues.join("; "));
      assert.ok(
        issues[0]!.startsWith("bootstrap 1: Cannot ") &&
          issues[0]!.includes(`"${entry}"`),
        issues[0],
      );
    });
  }
});

Deno.test("upstreamsSchema takes bootstrap entries that are plain IP servers", () => {
  const got = upstreamsSchema.safeParse({
    groups,
    bootstrap: ["1.1.1.1", "1.1.1.1:53", "[2001:db8::1]:5353", "udp://9.9.9.9"],
  });
  assert.equal(got.success, true, got.error?.message);
});

Deno.test("settings schemas read durations as ms and sizes as bytes", () => {
  const cache = cacheSchema.parse({ minTTL: "5s", maxBytes: "2MiB" });
  assert.equal(cache.minTTL, 5000);
  assert.equal(cache.maxTTL, 86_400_000, "the default, 24h");
  assert.equal(cache.serveStale.maxWait, 1800);
  assert.equal(cache.maxBytes, 2 * 2 ** 20);
  const querylog = querylogSchema.parse({});
  assert.equal(querylog.retention.raw, 720 * 3_600_000);
  assert.equal(querylog.retention.maxDBBytes, 10 * 2 ** 30);
  assert.equal(upstreamsSchema.parse({}).groups.default?.timeout, 2000);
});

Deno.test("cacheSchema compares parsed durations and sizes, and not unparsed text", () => {
  const issues = (input: unknown) =>
    cacheSchema.safeParse(input).error?.issues.map((i) =>
      `${i.path.join(".")}: ${i.message}`
    );
  assert.deepEqual(issues({ minTTL: "90m", maxTTL: "1h" }), [
    "minTTL: must not be longer than maxTTL",
  ]);
  assert.deepEqual(issues({ maxBytes: "1023KiB" }), [
    "maxBytes: must be at least 1MiB",
  ]);
  assert.deepEqual(issues({ maxTTL: "soon" }), [
    'maxTTL: must be a duration such as "30s", "10m" or "24h"',
  ]);
  assert.deepEqual(issues({ maxBytes: "lots" }), [
    'maxBytes: must be a size such as "512MiB", "10GiB" or "1GB"',
  ]);
});
