import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import type { Store } from "../store/store.ts";
import {
  BLOCKING_DISABLED_KEY,
  disableBlocking,
  enableBlocking,
  MAX_BLOCKING_DISABLE_MS,
  parseDisabledUntil,
  readBlockingDisabledUntil,
  type RuntimeStore,
  watchBlockingState,
} from "./blocking_state.ts";

const T0 = Date.parse("2030-06-01T12:00:00.000Z");

/** A clock the test moves by hand. */
function fakeClock(start = T0) {
  let ms = start;
  return {
    now: () => new Date(ms),
    advance: (by: number) => {
      ms += by;
    },
  };
}

/** Polls until check() holds, failing after timeoutMs of real time. */
async function eventually(check: () => boolean, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Runs a watcher for the duration of fn and stops it, whatever happens. */
async function watching(
  store: RuntimeStore,
  opts: { intervalMs?: number; now?: () => Date },
  fn: (seen: (number | undefined)[], lines: string[]) => Promise<void>,
) {
  const seen: (number | undefined)[] = [];
  const logger = memoryLogger();
  const stop = new AbortController();
  const done = watchBlockingState(store, {
    ...opts,
    signal: stop.signal,
    logger,
    onChange: (until) => seen.push(until),
  });
  try {
    await fn(seen, logger.lines);
  } finally {
    stop.abort();
    await done;
  }
}

async function withSqlite(fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-blocking-state-" });
  try {
    await fn(join(dir, "state.db"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("disableBlocking stores the end as an ISO time and reads back until it passes", async () => {
  const clock = fakeClock();
  await using store = asyncDisposable(createMemoryStore({ now: clock.now }));
  const until = await disableBlocking(store, 5 * 60_000, {
    now: clock.now,
    actor: "alice",
  });
  assert.equal(until.toISOString(), "2030-06-01T12:05:00.000Z");
  const stored = await store.getRuntime(BLOCKING_DISABLED_KEY);
  assert.equal(stored?.value, "2030-06-01T12:05:00.000Z");
  assert.equal(stored?.actor, "alice");
  assert.equal(
    await readBlockingDisabledUntil(store, clock.now),
    until.getTime(),
  );
  clock.advance(5 * 60_000 - 1);
  assert.equal(
    await readBlockingDisabledUntil(store, clock.now),
    until.getTime(),
  );
  clock.advance(1);
  assert.equal(await readBlockingDisabledUntil(store, clock.now), undefined);
});

Deno.test("enableBlocking clears a disable and is harmless when on", async () => {
  const clock = fakeClock();
  await using store = asyncDisposable(createMemoryStore());
  await enableBlocking(store);
  await disableBlocking(store, 60_000, { now: clock.now });
  await enableBlocking(store, { actor: "bob" });
  assert.equal(await store.getRuntime(BLOCKING_DISABLED_KEY), undefined);
  assert.equal(await readBlockingDisabledUntil(store, clock.now), undefined);
  assert.deepEqual(
    store.audit.map((r) => `${r.action} ${r.actor}`),
    ["set system", "delete bob"],
  );
});

Deno.test("disableBlocking refuses durations outside (0, 24h] and stores nothing", async () => {
  await using store = asyncDisposable(createMemoryStore());
  for (
    const ms of [0, -1, NaN, Infinity, MAX_BLOCKING_DISABLE_MS + 1]
  ) {
    await assert.rejects(disableBlocking(store, ms), RangeError, String(ms));
  }
  assert.equal(await store.getRuntime(BLOCKING_DISABLED_KEY), undefined);
  const until = await disableBlocking(store, MAX_BLOCKING_DISABLE_MS);
  assert.ok(until.getTime() > Date.now() + MAX_BLOCKING_DISABLE_MS - 60_000);
});

Deno.test("readBlockingDisabledUntil treats a value that is not a time as on", async (t) => {
  const clock = fakeClock();
  await using store = asyncDisposable(createMemoryStore());
  const cases: [string, number | undefined][] = [
    ["2030-06-01T12:05:00.000Z", T0 + 300_000],
    ["2030-06-01T14:05:00+02:00", T0 + 300_000],
    ["2030-06-01T12:05Z", T0 + 300_000],
    ["2030-06-01T11:59:59.999Z", undefined],
    ["", undefined],
    ["soon", undefined],
    ["1780315500000", undefined],
    ["2030-06-01", undefined],
    ["2030-13-45T99:00:00Z", undefined],
  ];
  for (const [value, want] of cases) {
    await t.step(JSON.stringify(value), async () => {
      await store.setRuntime(BLOCKING_DISABLED_KEY, value);
      assert.equal(await readBlockingDisabledUntil(store, clock.now), want);
    });
  }
  assert.equal(parseDisabledUntil("2030-06-01T12:00:00Z"), T0);
});

Deno.test("watchBlockingState reports the first state, each change and the expiry", async () => {
  const clock = fakeClock();
  await using store = asyncDisposable(createMemoryStore());
  await watching(store, { intervalMs: 2, now: clock.now }, async (seen) => {
    await eventually(() => seen.length === 1);
    assert.deepEqual(seen, [undefined]);
    const first = await disableBlocking(store, 60_000, { now: clock.now });
    await eventually(() => seen.length === 2);
    const second = await disableBlocking(store, 120_000, { now: clock.now });
    await eventually(() => seen.length === 3);
    clock.advance(120_000);
    await eventually(() => seen.length === 4);
    // Polls after the expiry must not report it again.
    await new Promise((r) => setTimeout(r, 20));
    await disableBlocking(store, 60_000, { now: clock.now });
    await eventually(() => seen.length === 5);
    await enableBlocking(store);
    await eventually(() => seen.length === 6);
    assert.deepEqual(seen, [
      undefined,
      first.getTime(),
      second.getTime(),
      undefined,
      clock.now().getTime() + 60_000,
      undefined,
    ]);
  });
});

Deno.test("watchBlockingState wakes at the expiry, not an interval later", async () => {
  await using store = asyncDisposable(createMemoryStore());
  const until = await disableBlocking(store, 80);
  await watching(store, { intervalMs: 60_000 }, async (seen) => {
    await eventually(() => seen.length === 2, 1500);
    assert.deepEqual(seen, [until.getTime(), undefined]);
    assert.ok(Date.now() >= until.getTime());
  });
});

Deno.test("watchBlockingState sees a disable written through another sqlite connection", async () => {
  await withSqlite(async (path) => {
    const server = await openSqliteStore(path, { pollIntervalMs: 60_000 });
    const cli = await openSqliteStore(path, { pollIntervalMs: 60_000 });
    try {
      await watching(server, { intervalMs: 5 }, async (seen) => {
        await eventually(() => seen.length === 1);
        const until = await disableBlocking(cli, 5 * 60_000, { actor: "cli" });
        await eventually(() => seen.length === 2);
        await enableBlocking(cli);
        await eventually(() => seen.length === 3);
        assert.deepEqual(seen, [undefined, until.getTime(), undefined]);
      });
    } finally {
      await cli.close();
      await server.close();
    }
  });
});

Deno.test("watchBlockingState logs store errors, keeps going and reports after recovery", async () => {
  const inner = createMemoryStore();
  await using _ = asyncDisposable(inner);
  const until = await disableBlocking(inner, 60_000);
  let failuresLeft = 3;
  const flaky: RuntimeStore = {
    setRuntime: inner.setRuntime,
    getRuntime: (key) =>
      failuresLeft-- > 0
        ? Promise.reject(new Error("database is locked"))
        : inner.getRuntime(key),
  };
  await watching(flaky, { intervalMs: 2 }, async (seen, lines) => {
    await eventually(() => seen.length === 1);
    assert.deepEqual(seen, [until.getTime()]);
    const warnings = lines.filter((l) => l.includes("Cannot read"));
    assert.equal(warnings.length, 1, "one warning per run of failures");
    assert.match(warnings[0]!, /database is locked/);
    assert.ok(
      lines.some((l) => l.includes("Reading the blocking state again")),
    );
  });
});

Deno.test("watchBlockingState survives a throwing consumer and a bad value", async () => {
  await using store = asyncDisposable(createMemoryStore());
  await store.setRuntime(BLOCKING_DISABLED_KEY, "tomorrow");
  const logger = memoryLogger();
  const stop = new AbortController();
  const seen: (number | undefined)[] = [];
  const done = watchBlockingState(store, {
    intervalMs: 2,
    signal: stop.signal,
    logger,
    onChange: (until) => {
      seen.push(until);
      throw new Error("consumer broke");
    },
  });
  try {
    await eventually(() => seen.length === 1);
    const until = await disableBlocking(store, 60_000);
    await eventually(() => seen.length === 2);
    assert.deepEqual(seen, [undefined, until.getTime()]);
    const bad = logger.lines.filter((l) => l.includes("not an ISO 8601 time"));
    assert.equal(bad.length, 1, "a bad value is reported once");
    assert.ok(logger.lines.some((l) => l.includes("consumer broke")));
  } finally {
    stop.abort();
    await done;
  }
});

Deno.test("watchBlockingState returns promptly when aborted, also before starting", async () => {
  await using store = asyncDisposable(createMemoryStore());
  const stopped = new AbortController();
  stopped.abort();
  let calls = 0;
  await watchBlockingState(store, {
    signal: stopped.signal,
    logger: memoryLogger(),
    onChange: () => calls++,
  });
  assert.equal(calls, 0);
  const started = Date.now();
  await watching(store, { intervalMs: 60_000 }, async (seen) => {
    await eventually(() => seen.length === 1);
  });
  assert.ok(Date.now() - started < 1000, "abort cuts the 60 s pause short");
});

/** `await using` for a Store: closes it at the end of the scope. */
function asyncDisposable<S extends Store>(store: S): S & AsyncDisposable {
  return Object.assign(store, {
    [Symbol.asyncDispose]: () => store.close(),
  });
}
