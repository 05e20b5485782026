import assert from "node:assert/strict";
import { ratelimitSchema } from "../../config/schema_resolver.ts";
import type { ClientInfo, Transport } from "../../pipeline/handler.ts";
import { createRateLimiter, type RateLimitVerdict } from "./rate_limit.ts";

function settings(input: Record<string, unknown> = {}) {
  return ratelimitSchema.parse(input);
}

function client(address: string, transport: Transport = "udp"): ClientInfo {
  return { address, port: 5300, transport };
}

/** A limiter on a fake clock that only moves when the test says so. */
function limiterOn(input: Record<string, unknown>) {
  const clock = { now: 0 };
  const limiter = createRateLimiter(settings(input), { now: () => clock.now });
  return { clock, limiter };
}

function burst(
  check: (c: ClientInfo) => RateLimitVerdict,
  who: ClientInfo,
  n: number,
): RateLimitVerdict[] {
  return Array.from({ length: n }, () => check(who));
}

const perHost = { ipv4: { "32": 3 }, ipv6: { "128": 3 }, slip: 50 };

Deno.test("rateLimiter passes queries under the limit", () => {
  const { limiter } = limiterOn(perHost);
  assert.deepEqual(burst(limiter.check, client("198.51.100.1"), 3), [
    "pass",
    "pass",
    "pass",
  ]);
});

Deno.test("rateLimiter slips and drops over-limit queries by percentage", async (t) => {
  const cases = [
    { slip: 50, want: ["drop", "slip", "drop", "slip"] },
    { slip: 25, want: ["drop", "drop", "drop", "slip"] },
    { slip: 100, want: ["slip", "slip", "slip", "slip"] },
    { slip: 0, want: ["drop", "drop", "drop", "drop"] },
  ];
  for (const c of cases) {
    await t.step(`slip ${c.slip}`, () => {
      const { limiter } = limiterOn({ ...perHost, slip: c.slip });
      const who = client("198.51.100.1");
      burst(limiter.check, who, 3);
      assert.deepEqual(burst(limiter.check, who, 4), c.want);
      const counts = limiter.drain();
      const slipped = c.want.filter((v) => v === "slip").length;
      assert.deepEqual(counts, {
        limited: 4,
        slipped,
        dropped: 4 - slipped,
        evicted: 0,
      });
    });
  }
});

Deno.test("rateLimiter refills tokens with time", () => {
  const { clock, limiter } = limiterOn({ ...perHost, slip: 0 }); // 3 a minute
  const who = client("198.51.100.1");
  burst(limiter.check, who, 3);
  assert.notEqual(limiter.check(who), "pass");
  clock.now += 20_000; // one token
  assert.deepEqual(burst(limiter.check, who, 2), ["pass", "drop"]);
});

Deno.test("rateLimiter keeps limiting at the client's rate when the clock steps back an hour", () => {
  const { clock, limiter } = limiterOn({ ipv4: { "32": 600 }, slip: 0 });
  const who = client("198.51.100.1");
  /** A minute of queries at the allowed rate, one every 100 ms. */
  function steadyMinute(): RateLimitVerdict[] {
    return Array.from({ length: 600 }, () => {
      clock.now += 100;
      return limiter.check(who);
    });
  }
  clock.now = 2 * 3_600_000;
  assert.deepEqual(steadyMinute().filter((v) => v !== "pass"), []);
  clock.now -= 3_600_000; // NTP steps the clock back
  assert.deepEqual(steadyMinute().filter((v) => v !== "pass"), []);
  // Nor did the step give tokens: the 100 ms spanning it earned none, so
  // the bucket holds 598 (one short of a steady client's 599).
  const verdicts = burst(limiter.check, who, 599);
  assert.equal(verdicts.filter((v) => v === "pass").length, 598);
  assert.equal(verdicts[598], "drop");
});

Deno.test("rateLimiter aggregates IPv4 clients by /24", () => {
  const { limiter } = limiterOn({
    ipv4: { "32": 100, "24": 4 },
    slip: 0,
  });
  const verdicts = [1, 2, 3, 4, 5].map((i) =>
    limiter.check(client(`198.51.100.${i}`))
  );
  assert.deepEqual(verdicts, ["pass", "pass", "pass", "pass", "drop"]);
  assert.equal(limiter.check(client("198.51.101.1")), "pass");
});

Deno.test("rateLimiter aggregates IPv6 clients by /64", () => {
  const { limiter } = limiterOn({
    ipv6: { "128": 100, "64": 2 },
    slip: 0,
  });
  const verdicts = ["2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:1::3"]
    .map((a) => limiter.check(client(a)));
  assert.deepEqual(verdicts, ["pass", "pass", "drop"]);
  assert.equal(limiter.check(client("2001:db8:0:2::1")), "pass");
});

Deno.test("rateLimiter never limits some clients", async (t) => {
  const cases = [
    { name: "TCP", who: client("198.51.100.1", "tcp") },
    { name: "IPv4 loopback", who: client("127.0.0.53") },
    { name: "IPv6 loopback", who: client("::1") },
    { name: "an exempt prefix", who: client("192.0.2.77") },
    { name: "an exempt address", who: client("203.0.113.5") },
    {
      name: "an exempt address, IPv4-mapped",
      who: client("::ffff:203.0.113.5"),
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { limiter } = limiterOn({
        ...perHost,
        exempt: ["192.0.2.0/24", "203.0.113.5"],
      });
      assert.deepEqual(
        burst(limiter.check, c.who, 10).filter((v) => v !== "pass"),
        [],
      );
      assert.equal(limiter.buckets, 0);
    });
  }
});

Deno.test("rateLimiter treats an IPv4-mapped client as IPv4", () => {
  const { limiter } = limiterOn({ ...perHost, slip: 0 });
  burst(limiter.check, client("198.51.100.1"), 3);
  assert.equal(limiter.check(client("::ffff:198.51.100.1")), "drop");
});

Deno.test("rateLimiter ignores a prefix length limited to 0", () => {
  const { limiter } = limiterOn({ ipv4: { "32": 0, "24": 2 }, slip: 0 });
  burst(limiter.check, client("198.51.100.1"), 2);
  assert.equal(limiter.buckets, 1);
});

Deno.test("rateLimiter keeps a limited prefix's bucket when a spray of fresh sources fills the table", () => {
  const { limiter } = limiterOn({ ...perHost, slip: 0, maxBuckets: 4 });
  const victim = client("198.51.100.1");
  burst(limiter.check, victim, 3); // its bucket is empty now
  assert.equal(limiter.check(victim), "drop");
  // Each source once: the table fills over and over, the victim's bucket
  // the oldest in it; the sources' buckets, which would pass, go instead.
  for (let i = 2; i < 50; i++) limiter.check(client(`198.51.100.${i}`));
  assert.equal(limiter.buckets, 4);
  assert.equal(limiter.check(victim), "drop", "still limited");
});

Deno.test("rateLimiter keeps at most maxBuckets, evicting the least recently used", () => {
  const { limiter } = limiterOn({ ...perHost, slip: 0, maxBuckets: 2 });
  const a = client("198.51.100.1");
  burst(limiter.check, a, 3); // a is empty now
  limiter.check(client("198.51.100.2"));
  limiter.check(a); // a is the most recent again (and over its limit)
  limiter.check(client("198.51.100.3")); // evicts .2, not a
  assert.equal(limiter.buckets, 2);
  assert.equal(limiter.check(a), "drop");
  assert.equal(limiter.drain().evicted, 1);
});
