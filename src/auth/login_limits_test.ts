import assert from "node:assert/strict";
import { DEFAULT_LOGIN_LIMITS, LoginLimiter } from "./login_limits.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A limiter on a clock the test moves. */
function limiter(limits: Partial<typeof DEFAULT_LOGIN_LIMITS> = {}) {
  const clock = { now: 1_700_000_000_000 };
  const limits_ = new LoginLimiter({ now: () => clock.now, limits });
  return {
    limiter: limits_,
    advance: (ms: number) => {
      clock.now += ms;
    },
  };
}

Deno.test("LoginLimiter blocks an address for 5 minutes after 5 failures", () => {
  const { limiter: l, advance } = limiter();
  for (let i = 0; i < 4; i++) {
    assert.equal(l.check("192.0.2.1", `user${i}`), undefined);
    l.failed("192.0.2.1", `user${i}`);
    advance(10 * SECOND);
  }
  assert.equal(l.check("192.0.2.1", "user4"), undefined);
  l.failed("192.0.2.1", "user4");
  assert.deepEqual(l.check("192.0.2.1", "anyone"), {
    retryAfterSeconds: 300,
    reason: "address",
  });
  // Another address is not blocked, nor are these users elsewhere.
  assert.equal(l.check("192.0.2.2", "user4"), undefined);
  advance(299 * SECOND + 1);
  assert.deepEqual(l.check("192.0.2.1", "anyone"), {
    retryAfterSeconds: 1,
    reason: "address",
  });
  advance(SECOND);
  assert.equal(l.check("192.0.2.1", "anyone"), undefined);
  // The block cleared the count: the next failure starts from one.
  l.failed("192.0.2.1", "user5");
  assert.equal(l.check("192.0.2.1", "anyone"), undefined);
});

Deno.test("LoginLimiter blocks a user name for 15 minutes after 10 failures from anywhere", () => {
  const { limiter: l, advance } = limiter();
  for (let i = 0; i < 10; i++) {
    assert.equal(l.check(`198.51.100.${i}`, "admin"), undefined);
    l.failed(`198.51.100.${i}`, "admin");
    advance(SECOND);
  }
  assert.deepEqual(l.check("203.0.113.9", "admin"), {
    retryAfterSeconds: 899,
    reason: "user",
  });
  // Folded like the key: case and compatibility forms do not escape it.
  assert.equal(l.check("203.0.113.9", "ADMIN")?.reason, "user");
  assert.equal(l.check("203.0.113.9", "ａｄｍｉｎ")?.reason, "user");
  assert.equal(l.check("203.0.113.9", "alice"), undefined);
  advance(899 * SECOND);
  assert.equal(l.check("203.0.113.9", "admin"), undefined);
});

Deno.test("LoginLimiter forgets failures older than 15 minutes", () => {
  const { limiter: l, advance } = limiter();
  for (let i = 0; i < 4; i++) l.failed("192.0.2.1", "alice");
  advance(15 * MINUTE);
  l.failed("192.0.2.1", "alice");
  assert.equal(l.check("192.0.2.1", "alice"), undefined);
  // Sliding: the window follows the clock, it is not a fixed bucket.
  advance(MINUTE);
  for (let i = 0; i < 3; i++) l.failed("192.0.2.1", "alice");
  assert.equal(l.check("192.0.2.1", "alice"), undefined);
  l.failed("192.0.2.1", "alice");
  assert.equal(l.check("192.0.2.1", "alice")?.reason, "address");
});

Deno.test("LoginLimiter answers with the block that ends later", () => {
  const { limiter: l, advance } = limiter({
    addressFailures: 3,
    userFailures: 3,
  });
  for (let i = 0; i < 3; i++) l.failed("192.0.2.1", "alice");
  // Both blocked at once: 5 minutes for the address, 15 for the user.
  assert.deepEqual(l.check("192.0.2.1", "alice"), {
    retryAfterSeconds: 900,
    reason: "user",
  });
  advance(10 * MINUTE);
  assert.deepEqual(l.check("192.0.2.1", "alice"), {
    retryAfterSeconds: 300,
    reason: "user",
  });
  assert.equal(l.check("192.0.2.1", "bob"), undefined);
});

Deno.test("LoginLimiter clears a user's failures on success, and the address's for that user", () => {
  const { limiter: l } = limiter();
  for (let i = 0; i < 4; i++) l.failed("192.0.2.1", "alice");
  for (let i = 0; i < 9; i++) l.failed(`198.51.100.${i}`, "alice");
  l.succeeded("192.0.2.1", "Alice");
  // The count starts afresh: four more mistakes are still fine.
  for (let i = 0; i < 4; i++) l.failed("192.0.2.1", "alice");
  assert.equal(l.check("192.0.2.1", "alice"), undefined);
  assert.equal(l.trackedUsers, 1);
});

Deno.test("LoginLimiter does not let one valid account reset a password spray", () => {
  const { limiter: l } = limiter();
  // Four guesses at other accounts, then a login to the attacker's own.
  for (const victim of ["alice", "bob", "carol", "dave"]) {
    l.failed("192.0.2.66", victim);
  }
  l.succeeded("192.0.2.66", "mallory");
  l.failed("192.0.2.66", "erin");
  assert.equal(l.check("192.0.2.66", "frank")?.reason, "address");
});

Deno.test("LoginLimiter counts an IPv6 /64 as one client", () => {
  const { limiter: l } = limiter();
  for (let i = 1; i <= 5; i++) {
    l.failed(`2001:db8:1:2::${i.toString(16)}`, `u${i}`);
  }
  assert.equal(l.check("2001:db8:1:2:dead:beef:0:1", "x")?.reason, "address");
  assert.equal(l.check("2001:db8:1:3::1", "x"), undefined);
  for (let i = 1; i <= 5; i++) l.failed(`::ffff:192.0.2.${i}`, `v${i}`);
  assert.equal(l.check("192.0.2.1", "x"), undefined);
  for (let i = 1; i <= 5; i++) l.failed("::ffff:192.0.2.1", `w${i}`);
  assert.equal(l.check("192.0.2.1", "x")?.reason, "address");
});

Deno.test("LoginLimiter keeps at most maxTracked addresses and users, dropping the oldest", () => {
  const { limiter: l } = limiter();
  l.failed("192.0.2.1", "target");
  // A flood of made-up names from many addresses.
  for (let i = 0; i < 25_000; i++) {
    l.failed(
      `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      `random-${i}`,
    );
  }
  assert.equal(l.trackedUsers, DEFAULT_LOGIN_LIMITS.maxTracked);
  assert.equal(l.trackedAddresses, DEFAULT_LOGIN_LIMITS.maxTracked);
  // The first failures were dropped: four more from that address and
  // nine more for that name, which would have blocked both, do not.
  for (let i = 0; i < 4; i++) l.failed("192.0.2.1", `other-${i}`);
  for (let i = 0; i < 9; i++) l.failed(`198.51.100.${i}`, "target");
  assert.equal(l.check("192.0.2.1", "target"), undefined);
  // The newest were kept: the last address's four more failures block it.
  const last = "10.0.97.167"; // i = 24999
  for (let i = 0; i < 4; i++) l.failed(last, "x");
  assert.equal(l.check(last, "y")?.reason, "address");
});

Deno.test("LoginLimiter evicts the least recently failed, not the least recently added", () => {
  const { limiter: l } = limiter({ maxTracked: 3, userFailures: 3 });
  l.failed("192.0.2.1", "a");
  l.failed("192.0.2.2", "b");
  l.failed("192.0.2.3", "c");
  l.failed("192.0.2.1", "a"); // a is now the most recent
  l.failed("192.0.2.4", "d"); // evicts b
  l.failed("192.0.2.5", "a");
  assert.equal(l.check("192.0.2.9", "a")?.reason, "user");
  l.failed("192.0.2.6", "b");
  l.failed("192.0.2.7", "b");
  assert.equal(l.check("192.0.2.9", "b"), undefined); // b's first failure was dropped
  assert.equal(l.trackedUsers, 3);
});

Deno.test("LoginLimiter forgets entries with nothing left to count", () => {
  const { limiter: l, advance } = limiter();
  l.failed("192.0.2.1", "alice");
  for (let i = 0; i < 5; i++) l.failed("192.0.2.2", "bob");
  assert.equal(l.trackedAddresses, 2);
  assert.equal(l.trackedUsers, 2);
  advance(15 * MINUTE + 1);
  assert.equal(l.check("192.0.2.1", "alice"), undefined);
  assert.equal(l.check("192.0.2.2", "bob"), undefined);
  assert.equal(l.trackedAddresses, 0);
  assert.equal(l.trackedUsers, 0);
  l.failed("192.0.2.3", "carol");
  l.succeeded("192.0.2.3", "carol");
  assert.equal(l.trackedAddresses, 0);
  assert.equal(l.trackedUsers, 0);
});

Deno.test("LoginLimiter keys a huge user name by its start", () => {
  const { limiter: l } = limiter({ userFailures: 2 });
  const long = "a".repeat(300);
  l.failed("192.0.2.1", `${long}1`);
  l.failed("192.0.2.2", `${long}2`);
  assert.equal(l.check("192.0.2.3", long)?.reason, "user");
  assert.equal(l.check("192.0.2.3", "a".repeat(10)), undefined);
  const huge = "x".repeat(1 << 20);
  l.failed("192.0.2.4", huge);
  assert.equal(l.trackedUsers, 2);
});

Deno.test("LoginLimiter extends a block when failures keep coming", () => {
  const { limiter: l, advance } = limiter({ addressFailures: 2 });
  l.failed("192.0.2.1", "a");
  l.failed("192.0.2.1", "b");
  assert.equal(l.check("192.0.2.1", "c")?.retryAfterSeconds, 300);
  // Logins already past check when the block began fail too.
  advance(2 * MINUTE);
  l.failed("192.0.2.1", "c");
  l.failed("192.0.2.1", "d");
  assert.equal(l.check("192.0.2.1", "e")?.retryAfterSeconds, 300);
});
