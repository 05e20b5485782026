import assert from "node:assert/strict";
import { join } from "node:path";
import { bufferIO, UsageError } from "./command.ts";
import { fetchFailure, healthCommand, opsUrlFor } from "./health.ts";
import { runCli } from "./run.ts";
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

/** `kudurru health …` through main's dispatch: the exit code a shell sees. */
async function kudurruHealth(...args: string[]) {
  const out = bufferIO();
  const code = await runCli(["health", ...args], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

/** A loopback URL where nothing listens: a server's, stopped. */
async function closedUrl(): Promise<string> {
  let url = "";
  await withOps((u) => {
    url = u;
    return Promise.resolve();
  });
  return url;
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

Deno.test("kudurru health exits 1 and says why when nothing listens", async () => {
  const url = await closedUrl();
  const result = await health("--url", url, "--timeout", "2s");
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.equal(
    result.stderr,
    `kudurru health: cannot connect to ${url}/healthz/ready: connection refused ` +
      `(is kudurru serve running, and is listeners.ops.address right?)\n`,
  );
});

Deno.test("fetchFailure keeps the last link of Deno's error chain", () => {
  const failed = (cause: string) =>
    new TypeError("fetch failed", { cause: new Error(cause) });
  const table: [unknown, string][] = [
    [
      failed(
        "error sending request for url (http://127.0.0.1:9/healthz/ready): client error (Connect): tcp connect error: Connection refused (os error 111)",
      ),
      "connection refused",
    ],
    [
      failed(
        "error sending request for url (http://nowhere.invalid:8081/): client error (Connect): dns error: failed to lookup address information: Name or service not known",
      ),
      "name or service not known",
    ],
    [
      failed("client error (Connect): invalid peer certificate: UnknownIssuer"),
      "UnknownIssuer",
    ],
    // Deno refuses some ports itself, without a cause.
    [
      new TypeError("Fetch failed: Requests to port 1 are blocked"),
      "requests to port 1 are blocked",
    ],
  ];
  for (const [err, why] of table) assert.equal(fetchFailure(err), why);
});

Deno.test("kudurru health asks and labels the probe its --url names", async () => {
  await withOps(async (url, state) => {
    // Not started: live is up, ready is not. Asking live must say "live".
    const live = await health("--url", `${url}/healthz/live`);
    assert.deepEqual(live, {
      code: 0,
      stdout: `live: ok (${url}/healthz/live)\n`,
      stderr: "",
    });
    const same = await health("--live", "--url", `${url}/healthz/live`);
    assert.equal(same.stdout, `live: ok (${url}/healthz/live)\n`);
    state.markStarted();
    const startup = await health("--url", `${url}/healthz/startup`);
    assert.equal(startup.stdout, `startup: ok (${url}/healthz/startup)\n`);
  });
});

/** What `kudurru health` ends with when the configuration `file` is missing. */
function noSuchFile(file: string) {
  return {
    code: 1,
    stdout: "", // no server asked
    stderr:
      `kudurru health: cannot find the ops listener: Cannot load "${file}": no such file ` +
      `(fix the configuration, or give the listener with --url, such as http://127.0.0.1:8081)\n`,
  };
}

Deno.test("kudurru health fails on a named configuration it cannot load, rather than guess an address", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = join(dir, "missing.yaml");
    assert.deepEqual(
      await kudurruHealth("--config", missing),
      noSuchFile(missing),
    );
    const broken = join(dir, "broken.yaml");
    await Deno.writeTextFile(broken, "listeners:\n  ops: [\n");
    const result = await kudurruHealth("--config", broken);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    assert.ok(
      result.stderr.startsWith(
        `kudurru health: cannot find the ops listener: Cannot load "${broken}": line 3,`,
      ),
      result.stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru health fails on a $KUDURRU_CONFIG it cannot load", async () => {
  const dir = await Deno.makeTempDir();
  const before = Deno.env.get("KUDURRU_CONFIG");
  try {
    const missing = join(dir, "missing.yaml");
    Deno.env.set("KUDURRU_CONFIG", missing);
    assert.deepEqual(await kudurruHealth(), noSuchFile(missing));
  } finally {
    if (before === undefined) Deno.env.delete("KUDURRU_CONFIG");
    else Deno.env.set("KUDURRU_CONFIG", before);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru health rejects conflicting probes, bad URLs and bad timeouts", async () => {
  const cases: [string[], RegExp][] = [
    [["--ready", "--live"], /choose one of/],
    [["--url", "not a url"], /is not a URL/],
    [["--url", "ftp://127.0.0.1:8081"], /must be http/],
    [
      ["--ready", "--url", "http://127.0.0.1:8081/healthz/live"],
      /--ready conflicts with --url "http:\/\/127\.0\.0\.1:8081\/healthz\/live", which asks the live probe/,
    ],
    [
      ["--url", "http://127.0.0.1:8081/healthz/alive"],
      /names no probe; the probes are \/healthz\/ready, \/healthz\/live, \/healthz\/startup/,
    ],
    [
      ["--timeout", "soon", "--url", "http://127.0.0.1:1"],
      /not a positive duration/,
    ],
    [
      ["--timeout", "25d", "--url", "http://127.0.0.1:1"],
      /is longer than 24h/,
    ],
    [["extra"], /unexpected argument/],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(
      () => healthCommand.run(args, bufferIO().io),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
      args.join(" "),
    );
    // Through main's dispatch: exit 1, never the 2 Docker reserves.
    const { code, stderr } = await kudurruHealth(...args);
    assert.equal(code, 1, args.join(" "));
    assert.match(stderr, message);
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
