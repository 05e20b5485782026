import assert from "node:assert/strict";
import { join } from "node:path";
import { bufferIO, UsageError } from "./command.ts";
import { healthCommand, opsUrlFor } from "./health.ts";
import { createHealth, type Health } from "../health/health.ts";
import { startOpsServer } from "../health/ops_server.ts";
import { memoryLogger } from "../log/logger.ts";

async function withOps(body: (url: string, health: Health) => Promise<void>) {
  const health = createHealth();
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health,
    logger: memoryLogger(),
  });
  try {
    await body(`http://127.0.0.1:${server.addr.port}`, health);
  } finally {
    await server.stop();
  }
}

async function health(...args: string[]) {
  const out = bufferIO();
  const code = await healthCommand.run(args, out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

Deno.test("kudurru health --ready exits 1 with the reasons until the server is ready", async () => {
  await withOps(async (url, state) => {
    let listening = false;
    state.register(
      "listeners",
      () =>
        listening
          ? { ready: true }
          : { ready: false, reason: "DNS listeners not bound" },
    );

    const starting = await health("--url", url);
    assert.equal(starting.code, 1);
    assert.match(starting.stdout, /^ready: not ok, HTTP 503/);
    assert.match(starting.stdout, /startup: still starting/);
    assert.match(starting.stdout, /listeners: DNS listeners not bound/);

    state.markStarted();
    listening = true;
    const ready = await health("--ready", "--url", url);
    assert.deepEqual(ready, {
      code: 0,
      stdout: `ready: ok (${url}/healthz/ready)\n`,
      stderr: "",
    });

    state.setLameduck();
    const leaving = await health("--url", url);
    assert.equal(leaving.code, 1);
    assert.match(leaving.stdout, /lameduck: shutting down/);
  });
});

Deno.test("kudurru health --live and --startup ask their own probes", async () => {
  await withOps(async (url, state) => {
    assert.equal((await health("--live", "--url", url)).code, 0);
    const starting = await health("--startup", "--url", url);
    assert.equal(starting.code, 1);
    assert.match(starting.stdout + starting.stderr, /still starting/, "why");
    state.markStarted();
    const started = await health("--startup", "--url", `${url}/`);
    assert.equal(started.code, 0);
    assert.match(started.stdout, /\/healthz\/startup\)/);
  });
});

Deno.test("kudurru health finds the ops listener in the configuration", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withOps(async (url, state) => {
      state.markStarted();
      const port = new URL(url).port;
      const config = join(dir, "kudurru.yaml");
      await Deno.writeTextFile(
        config,
        `listeners:\n  ops:\n    address: "0.0.0.0:${port}"\n`,
      );
      const result = await health("--config", config);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        `ready: ok (http://127.0.0.1:${port}/healthz/ready)\n`,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru health exits 1 and says so when nothing listens", async () => {
  let url = "";
  await withOps((u) => {
    url = u;
    return Promise.resolve();
  });
  // The server has stopped: its port is closed now.
  const result = await health("--url", url, "--timeout", "2s");
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^kudurru health: cannot reach http:\/\/127\.0\.0\.1:\d+\/healthz\/ready: .*is kudurru serve running/,
  );
});

Deno.test("kudurru health rejects conflicting probes, bad URLs and bad timeouts", async () => {
  const cases: [string[], RegExp][] = [
    [["--ready", "--live"], /choose one of/],
    [["--url", "not a url"], /is not a URL/],
    [["--url", "ftp://127.0.0.1:8081"], /must be http/],
    [
      ["--timeout", "soon", "--url", "http://127.0.0.1:1"],
      /not a positive duration/,
    ],
    [["extra"], /unexpected argument/],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(
      () => healthCommand.run(args, bufferIO().io),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
      args.join(" "),
    );
  }
});

Deno.test("opsUrlFor asks an any-address on loopback", () => {
  const table: [string, string][] = [
    ["0.0.0.0:8081", "http://127.0.0.1:8081"],
    ["[::]:8081", "http://[::1]:8081"],
    ["127.0.0.1:9000", "http://127.0.0.1:9000"],
    ["[::1]:8081", "http://[::1]:8081"],
    ["192.0.2.10:8081", "http://192.0.2.10:8081"],
  ];
  for (const [address, url] of table) assert.equal(opsUrlFor(address), url);
});
