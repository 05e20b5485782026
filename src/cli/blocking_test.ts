import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BLOCKING_DISABLED_KEY,
  disableBlocking,
  readBlockingDisabledUntil,
  watchBlockingState,
} from "../blocking/blocking_state.ts";
import { memoryLogger } from "../log/logger.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import type { Store } from "../store/store.ts";
import {
  blockingCommand,
  formatLocalTime,
  makeBlockingCommand,
  parseDisableDuration,
} from "./blocking.ts";
import { bufferIO, UsageError } from "./command.ts";

/** Runs the command as run.ts does: a UsageError is exit code 2. */
async function blocking(args: string[]) {
  const b = bufferIO();
  let code: number;
  try {
    code = await blockingCommand.run(args, b.io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    b.io.stderr(err.message + "\n");
    code = 2;
  }
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

async function withDataDir(fn: (dir: string) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "kudurru-cli-blocking-" });
  try {
    await Deno.mkdir(join(root, "data"));
    await fn(join(root, "data"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Opens the data directory's state.db the way a running server would. */
async function withState<T>(dir: string, fn: (store: Store) => Promise<T>) {
  const store = await openSqliteStore(join(dir, "state.db"));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const OFF_UNTIL =
  /^Blocking is off until ((?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d)/;

Deno.test("kudurru blocking disable defaults to 5m and stores the end in state.db", async () => {
  await withDataDir(async (dir) => {
    const before = Date.now();
    const got = await blocking(["disable", "--data-dir", dir]);
    const after = Date.now();
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, OFF_UNTIL);
    assert.match(got.stdout, / \(5m\)\n$/);
    const stored = await withState(
      dir,
      (s) => s.getRuntime(BLOCKING_DISABLED_KEY),
    );
    assert.equal(stored?.actor, "cli");
    const until = Date.parse(stored?.value ?? "");
    assert.ok(until >= before + 300_000 && until <= after + 300_000);
    assert.equal(
      got.stdout,
      `Blocking is off until ${formatLocalTime(new Date(until))} (5m)\n`,
    );
  });
});

Deno.test("kudurru blocking disable takes a duration and status shows what is left", async (t) => {
  const cases: [string, number, string][] = [
    ["30s", 30_000, "30s"],
    ["90s", 90_000, "1m30s"],
    ["1h", 3_600_000, "1h"],
    ["1h30m", 5_400_000, "1h30m"],
    ["24h", 86_400_000, "24h"],
  ];
  await withDataDir(async (dir) => {
    for (const [arg, ms, shown] of cases) {
      await t.step(arg, async () => {
        const got = await blocking(["disable", arg, "--data-dir", dir]);
        assert.equal(got.code, 0, got.stderr);
        assert.match(got.stdout, new RegExp(` \\(${shown}\\)\\n$`));
        const until = await withState(dir, (s) => readBlockingDisabledUntil(s));
        assert.ok(until !== undefined);
        assert.ok(Math.abs(until - Date.now() - ms) < 5000);
        const status = await blocking(["status", "--data-dir", dir]);
        assert.equal(status.code, 0, status.stderr);
        const when = formatLocalTime(new Date(until));
        assert.ok(
          status.stdout.startsWith(`Blocking is off until ${when} (`),
          status.stdout,
        );
        assert.match(status.stdout, /left, set by cli\)\n$/);
      });
    }
  });
});

Deno.test("kudurru blocking enable turns it back on, and status says so", async () => {
  await withDataDir(async (dir) => {
    assert.equal(
      (await blocking(["status", "--data-dir", dir])).stdout,
      "Blocking is on\n",
    );
    await blocking(["disable", "10m", "--data-dir", dir]);
    const enabled = await blocking(["enable", "--data-dir", dir]);
    assert.deepEqual(enabled, {
      code: 0,
      stdout: "Blocking is on\n",
      stderr: "",
    });
    assert.equal(
      (await blocking(["status", "--data-dir", dir])).stdout,
      "Blocking is on\n",
    );
    assert.equal(
      await withState(dir, (s) => s.getRuntime(BLOCKING_DISABLED_KEY)),
      undefined,
    );
  });
});

Deno.test("kudurru blocking status: a passed or unreadable time means on", async () => {
  await withDataDir(async (dir) => {
    await blocking(["status", "--data-dir", dir]); // creates state.db
    await withState(
      dir,
      (s) => s.setRuntime(BLOCKING_DISABLED_KEY, "2001-01-01T00:00:00.000Z"),
    );
    const passed = await blocking(["status", "--data-dir", dir]);
    assert.deepEqual(passed, {
      code: 0,
      stdout: "Blocking is on\n",
      stderr: "",
    });
    await withState(dir, (s) => s.setRuntime(BLOCKING_DISABLED_KEY, "soon"));
    const bad = await blocking(["status", "--data-dir", dir]);
    assert.equal(bad.stdout, "Blocking is on\n");
    assert.match(bad.stderr, /"soon", it is not a time.*blocking enable/);
  });
});

Deno.test("kudurru blocking disable reaches a server watching the same state.db", async () => {
  await withDataDir(async (dir) => {
    await blocking(["status", "--data-dir", dir]);
    const server = await openSqliteStore(join(dir, "state.db"));
    const seen: (number | undefined)[] = [];
    const stop = new AbortController();
    const watch = watchBlockingState(server, {
      intervalMs: 5,
      signal: stop.signal,
      logger: memoryLogger(),
      onChange: (until) => seen.push(until),
    });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 400 && seen.length < n; i++) {
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(seen.length, n);
    };
    try {
      await waitFor(1);
      await blocking(["disable", "1m", "--data-dir", dir]);
      await waitFor(2);
      await blocking(["enable", "--data-dir", dir]);
      await waitFor(3);
      assert.equal(seen[0], undefined);
      assert.ok((seen[1] ?? 0) > Date.now() + 50_000);
      assert.equal(seen[2], undefined);
    } finally {
      stop.abort();
      await watch;
      await server.close();
    }
  });
});

Deno.test("kudurru blocking usage errors exit 2 and say what to do", async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /missing subcommand \(disable, enable or status\)/],
    [["disabel"], /unknown subcommand "disabel" \(did you mean "disable"\?\)/],
    [["stat"], /unknown subcommand "stat" \(did you mean "status"\?\)/],
    [["frobnicate"], /unknown subcommand "frobnicate"; use disable/],
    [
      ["disable", "300"],
      /"300" is not a duration.*did you mean "300s" or "300m"/,
    ],
    [["disable", "soon"], /"soon" is not a duration such as 30s, 5m or 1h$/m],
    [["disable", "0"], /0 is too short; the shortest is 1s$/m],
    [["disable", "5ms"], /too short.*did you mean "5m"\?/],
    [["disable", "25h"], /longer than the 24h limit.*blocking\.enabled: false/],
    [["disable", "5m", "10m"], /blocking disable: unexpected argument "10m"/],
    [["enable", "5m"], /blocking enable: unexpected argument "5m"/],
    [["status", "--bogus"], /kudurru blocking: .*--bogus/],
    [["status", "--data-dir"], /kudurru blocking: .*--data-dir/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" ") || "(none)", async () => {
      // A data dir that must never be created: usage errors touch nothing.
      const got = await blocking([...args, "--data-dir", "/nonexistent/x"]);
      assert.equal(got.code, 2, got.stdout);
      assert.match(got.stderr, message);
      assert.equal(got.stdout, "");
    });
  }
});

Deno.test("parseDisableDuration accepts 1s to 24h", () => {
  const table: [string, number][] = [
    ["1s", 1000],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1d", 86_400_000],
  ];
  for (const [text, ms] of table) assert.equal(parseDisableDuration(text), ms);
  for (const text of ["999ms", "24h1s", "", "-5m", "5 m"]) {
    assert.throws(() => parseDisableDuration(text), UsageError, text);
  }
});

Deno.test("formatLocalTime shows the date only when it is another day", () => {
  const now = new Date(2030, 5, 1, 12, 0, 0);
  assert.equal(
    formatLocalTime(new Date(2030, 5, 1, 14, 5, 9), now),
    "14:05:09",
  );
  assert.equal(
    formatLocalTime(new Date(2030, 5, 2, 0, 5, 0), now),
    "2030-06-02 00:05:00",
  );
  assert.equal(
    formatLocalTime(new Date(2031, 5, 1, 14, 5, 9), now),
    "2031-06-01 14:05:09",
  );
});

Deno.test("blockingCommand describes itself for kudurru help", () => {
  assert.equal(blockingCommand.name, "blocking");
  for (const sub of ["disable [DURATION]", "enable", "status"]) {
    assert.ok(
      blockingCommand.usage.includes(`kudurru blocking ${sub}`),
      sub,
    );
  }
});

Deno.test("kudurru blocking status says when the configuration turns blocking off", async () => {
  await withDataDir(async (dir) => {
    const config = join(dir, "..", "kudurru.yaml");
    const status = () =>
      blocking(["status", "--data-dir", dir, "--config", config]);
    await Deno.writeTextFile(config, "blocking: { enabled: false }\n");
    // No server runs: the file is labelled as what the next start reads.
    assert.deepEqual(await status(), {
      code: 0,
      stdout:
        `No server is running on ${dir}; kudurru.yaml says blocking.enabled: false (takes effect at the next start)\n`,
      stderr: "",
    });
    await Deno.writeTextFile(config, "blocking: { enabeld: false }\n");
    const broken = await status();
    assert.equal(broken.stdout, "Blocking is on\n");
    assert.match(
      broken.stderr,
      /enabeld: unknown key.*showing the stored state/,
    );
  });
});

Deno.test("kudurru blocking status on a missing data directory says so and creates nothing", async () => {
  await withDataDir(async (dir) => {
    const missing = join(dir, "nope");
    await assert.rejects(
      blocking(["status", "--data-dir", missing]),
      /No data directory at ".*nope": nothing is stored there yet/,
    );
    await assert.rejects(Deno.stat(missing), Deno.errors.NotFound);
  });
});

/** `blocking` whose status finds a server that started with `enabled`. */
function withRunning(enabled: boolean | "unknown") {
  const command = makeBlockingCommand({
    askServer: (dataDir) =>
      Promise.resolve(
        enabled === "unknown"
          ? {
            state: "unknown",
            path: join(dataDir, "kudurru.sock"),
            why:
              "cannot reach the running server: run as the server's user (permission denied on the socket)",
          }
          : {
            state: "running",
            path: join(dataDir, "kudurru.sock"),
            running: {
              source: "kudurru.yaml",
              startedAt: new Date().toISOString(),
              config: { blocking: { enabled } },
            },
          },
      ),
  });
  return async (args: string[]) => {
    const b = bufferIO();
    const code = await command.run(args, b.io);
    return { code, stdout: b.stdout(), stderr: b.stderr() };
  };
}

Deno.test("kudurru blocking status reports the running server, and kudurru.yaml only as the next start's", async () => {
  await withDataDir(async (dir) => {
    const config = join(dir, "..", "kudurru.yaml");
    const args = ["status", "--data-dir", dir, "--config", config];
    // Edited to off after the server started on: it still blocks.
    await Deno.writeTextFile(config, "blocking: { enabled: false }\n");
    assert.deepEqual(await withRunning(true)(args), {
      code: 0,
      stdout: "Blocking is on\n" +
        "kudurru.yaml says blocking.enabled: false (takes effect at the next start)\n",
      stderr: "",
    });
    // …and the stored disable time is what the server follows.
    await withState(dir, (store) => disableBlocking(store, 60_000));
    const disabled = await withRunning(true)(args);
    assert.match(disabled.stdout, OFF_UNTIL);
    assert.match(
      disabled.stdout,
      /\nkudurru\.yaml says blocking\.enabled: false/,
    );
    // Started off, the file now on: off until a restart.
    await Deno.writeTextFile(config, "blocking: { enabled: true }\n");
    assert.deepEqual(await withRunning(false)(args), {
      code: 0,
      stdout:
        "Blocking is off by configuration (blocking.enabled: false since the server started)\n" +
        "kudurru.yaml says blocking.enabled: true (takes effect at the next start)\n",
      stderr: "",
    });
    // Cannot ask: the file's value is labelled, and stderr says why.
    await Deno.writeTextFile(config, "blocking: { enabled: false }\n");
    const unknown = await withRunning("unknown")(args);
    assert.equal(unknown.code, 0);
    assert.equal(
      unknown.stdout,
      "kudurru.yaml says blocking.enabled: false (takes effect at the next start)\n",
    );
    assert.match(
      unknown.stderr,
      /cannot ask the server running on .*: cannot reach the running server: run as the server's user/,
    );
  });
});
