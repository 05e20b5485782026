import assert from "node:assert/strict";
import { BusyBudget } from "./busy_budget.ts";

/** A budget on a clock that moves only when a request sleeps. */
function budgetAt(
  percent: number,
  opts: { maxWaiting?: number; dnsQuiet?: () => boolean } = {},
) {
  const clock = { t: 0, slept: 0 };
  const budget = new BusyBudget({
    percent,
    burstMs: 100,
    ...opts,
    now: () => clock.t,
    sleep: (ms) => {
      clock.t += ms;
      clock.slept += ms;
      return Promise.resolve();
    },
  });
  return { budget, clock };
}

Deno.test("BusyBudget lets requests run at once while the share is not spent", async () => {
  const { budget, clock } = budgetAt(10);
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(await budget.admit(), { ok: true });
    budget.spend(10);
    clock.t += 100; // 10 ms of work every 100 ms: exactly 10 %
  }
  assert.equal(clock.slept, 0);
});

Deno.test("BusyBudget makes requests past the share wait until it caught up", async () => {
  const { budget, clock } = budgetAt(10);
  assert.deepEqual(await budget.admit(), { ok: true });
  budget.spend(300); // 100 ms of burst, then 200 ms of debt
  assert.deepEqual(await budget.admit(), { ok: true });
  // 200 ms of debt at 10 % takes 2 s to repay.
  assert.ok(clock.slept >= 2000 && clock.slept < 2010, String(clock.slept));
});

Deno.test("BusyBudget binds nothing while DNS is quiet, and the share again, from a full burst, once it is busy", async () => {
  const dns = { quiet: true };
  const { budget, clock } = budgetAt(10, { dnsQuiet: () => dns.quiet });
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(await budget.admit(), { ok: true });
    budget.spend(100); // all of the thread, far past 10 %
    clock.t += 100;
  }
  assert.equal(clock.slept, 0, "a quiet server's spare time is the API's");
  dns.quiet = false;
  assert.deepEqual(await budget.admit(), { ok: true });
  budget.spend(300); // the burst of 100 ms, then 200 ms of debt
  assert.deepEqual(await budget.admit(), { ok: true });
  assert.ok(clock.slept >= 2000 && clock.slept < 2010, String(clock.slept));
});

Deno.test("BusyBudget over a long run keeps busy time to the share", async () => {
  const { budget, clock } = budgetAt(10);
  let busy = 0;
  for (let i = 0; i < 200; i++) {
    await budget.admit();
    budget.spend(50);
    clock.t += 50;
    busy += 50;
  }
  const share = busy / clock.t;
  assert.ok(share > 0.09 && share < 0.12, `busy ${(share * 100).toFixed(1)} %`);
});

Deno.test("BusyBudget refuses at once when too many already wait", async () => {
  const clock = { t: 0 };
  const wake: (() => void)[] = [];
  const budget = new BusyBudget({
    percent: 10,
    burstMs: 0,
    maxWaiting: 1,
    now: () => clock.t,
    sleep: () => new Promise((resolve) => wake.push(resolve)),
  });
  budget.spend(100);
  const first = budget.admit(); // waits
  const second = await budget.admit();
  assert.equal(second.ok, false);
  assert.equal(!second.ok && second.retryAfterSeconds, 1);
  clock.t += 1000;
  wake.shift()!();
  assert.deepEqual(await first, { ok: true });
});

Deno.test("BusyBudget.wait holds a stream's next part until the share caught up, however many wait", async () => {
  const { budget, clock } = budgetAt(10, { maxWaiting: 0 });
  await budget.wait();
  assert.equal(clock.slept, 0, "in credit: no wait");
  budget.spend(150); // 100 ms of burst, then 50 ms of debt
  await budget.wait();
  assert.ok(clock.slept >= 500 && clock.slept < 510, String(clock.slept));
  // admit() refuses when nobody may wait; wait() never does.
  budget.spend(10);
  assert.equal((await budget.admit()).ok, false);
  await budget.wait();
  assert.ok(clock.slept >= 600, String(clock.slept));
});

/**
 * A budget whose charges are recorded: `clock.t` is the time, `clock.other`
 * the server's other work on the thread so far.
 */
function recordingBudget() {
  const clock = { t: 0, other: 0 };
  const budget = new BusyBudget({
    percent: 10,
    lingerMs: 50,
    otherWorkMs: () => clock.other,
    now: () => clock.t,
  });
  const charges: number[] = [];
  budget.spend = (ms) => void charges.push(ms);
  const charged = () => charges.reduce((a, b) => a + b, 0);
  return { budget, clock, charged };
}

Deno.test("BusyBudget.run counts a request's time less the server's other work meanwhile", async () => {
  const { budget, clock, charged } = recordingBudget();
  await budget.run(async () => {
    clock.t += 10;
    clock.other += 4; // the query-log writer ran while the request waited
    await Promise.resolve();
  });
  assert.equal(charged(), 6);
});

Deno.test("BusyBudget.run counts overlapping requests' time once", async () => {
  const { budget, clock, charged } = recordingBudget();
  const { promise: firstDone, resolve: endFirst } = Promise.withResolvers();
  const { promise: secondDone, resolve: endSecond } = Promise.withResolvers();
  const first = budget.run(() => firstDone);
  const second = budget.run(() => secondDone);
  clock.t += 10;
  endFirst(undefined);
  await first;
  clock.t += 5;
  endSecond(undefined);
  await second;
  assert.equal(charged(), 15);
});

Deno.test("BusyBudget.run counts a short quiet between requests as theirs, a long one not", async () => {
  const { budget, clock, charged } = recordingBudget();
  await budget.run(() => {});
  clock.t += 20; // the response going out, the next request parsed
  await budget.run(() => {});
  assert.equal(charged(), 20);
  clock.t += 200; // the API idle
  await budget.run(() => {});
  assert.equal(charged(), 20);
});

Deno.test("BusyBudget.away leaves out a request's wait for work off the main thread, unless others run meanwhile", async () => {
  const { budget, clock, charged } = recordingBudget();
  await budget.run(async () => {
    clock.t += 3;
    await budget.away(
      new Promise((resolve) =>
        setTimeout(() => {
          clock.t += 400; // a password hash in a Worker
          resolve(undefined);
        }, 0)
      ),
    );
    clock.t += 2;
  });
  assert.equal(charged(), 5);

  const { promise: hashed, resolve: hashDone } = Promise.withResolvers();
  const { promise: listed, resolve: listDone } = Promise.withResolvers();
  const login = budget.run(() => budget.away(hashed));
  const list = budget.run(() => listed);
  clock.t += 30; // the list runs while the login waits
  listDone(undefined);
  await list;
  hashDone(undefined);
  await login;
  assert.equal(charged(), 35);
});

Deno.test("BusyBudget at 100 % limits nothing", async () => {
  const { budget, clock } = budgetAt(100);
  assert.equal(budget.limits, false);
  budget.spend(1_000_000);
  assert.deepEqual(await budget.admit(), { ok: true });
  assert.equal(clock.slept, 0);
});

Deno.test("api past its CPU share makes requests wait, then answers 503 busy with Retry-After", async () => {
  const { ADMIN_PASSWORD, apiFixture } = await import(
    "./testdata/api_fixture.ts"
  );
  const clock = { t: 0 };
  const wake: (() => void)[] = [];
  const budget = new BusyBudget({
    percent: 10,
    burstMs: 1000,
    maxWaiting: 1,
    now: () => clock.t,
    sleep: () => new Promise((resolve) => wake.push(resolve)),
  });
  await using f = await apiFixture({ budget });
  const client = f.client();
  assert.equal((await client.login("admin", ADMIN_PASSWORD)).status, 200);
  budget.spend(1500); // the burst and 500 ms more: 5 s to repay at 10 %
  const waiting = client.request("GET", "/api/v1/auth/status");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(wake.length, 1, "the first request waits");
  const refused = await f.client().request("GET", "/api/v1/auth/status");
  assert.equal(refused.status, 503);
  assert.equal(refused.body.error.key, "unavailable");
  // 500 ms of debt, and the login's own time, at 10 %: 5 s or a little more.
  const retryAfter = Number(refused.headers.get("retry-after"));
  assert.ok(retryAfter >= 5 && retryAfter <= 10, String(retryAfter));
  clock.t += retryAfter * 1000;
  wake.shift()!();
  assert.equal((await waiting).status, 200);
});
