import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import { cacheCommand } from "./cache.ts";
import { bufferIO, UsageError } from "./command.ts";
import {
  askRunningServer,
  CONTROL_SOCKET_FILE,
  startControlSocket,
} from "../server/control_socket.ts";
import {
  loadCacheDump,
  LOCAL_DB_FILE,
  saveCacheDump,
} from "../server/local_db.ts";
import { startDnsListeners } from "../listeners/listeners.ts";
import { buildQuery, udpExchange } from "../testing/dns_client.ts";
import {
  cacheSettings,
  snapshotWithCache,
} from "../stages/cache/testdata/answers.ts";

function entry(key: string, name: string): SerializedEntry {
  return {
    key,
    name,
    wire: new Uint8Array([0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 9]),
    offsets: [12],
    ttls: [300],
    storedAt: 1_000,
    expiresAt: 301_000,
    staleUntil: 601_000,
    ttl: 300,
    negative: false,
  };
}

/**
 * Deno allows Unix sockets by exact path only, so the tests that open the
 * control socket share this one directory (named in deno.json's test task);
 * the tests of one file run one after another.
 */
const SOCKET_TEST_DIR = "/tmp/kudurru-control-test";

/** A worker whose pipeline is the real cache stage (src/listeners/testdata). */
const CACHE_WORKER = new URL(
  "../listeners/testdata/cache_worker_entry.ts",
  import.meta.url,
);

async function socketDir() {
  await Deno.remove(SOCKET_TEST_DIR, { recursive: true }).catch(() => {});
  await Deno.mkdir(SOCKET_TEST_DIR);
  return {
    dir: SOCKET_TEST_DIR,
    [Symbol.asyncDispose]: () =>
      Deno.remove(SOCKET_TEST_DIR, { recursive: true }),
  };
}

async function tempDir() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-cache-cli-" });
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("cache flush NAME without a server cleans that name from local.db", async () => {
  await using tmp = await tempDir();
  const path = join(tmp.dir, LOCAL_DB_FILE);
  saveCacheDump(path, [
    entry("a", "ads.example."),
    entry("b", "ads.example."),
    entry("c", "www.example."),
  ]);
  const out = bufferIO();
  const code = await cacheCommand.run(
    ["flush", "ADS.example", "--data-dir", tmp.dir],
    out.io,
  );
  assert.equal(code, 0);
  assert.match(out.stdout(), /No server is running .* removed 2 saved/);
  const left = loadCacheDump(path, { logger: memoryLogger() });
  assert.deepEqual(left.map((e) => e.key), ["c"]);

  const all = bufferIO();
  assert.equal(
    await cacheCommand.run(["flush", "--data-dir", tmp.dir], all.io),
    0,
  );
  assert.match(all.stdout(), /removed 1 saved cached answer from/);
});

Deno.test("cache flush without a server or a saved cache removes nothing", async () => {
  await using tmp = await tempDir();
  const out = bufferIO();
  assert.equal(
    await cacheCommand.run(["flush", "--data-dir", tmp.dir], out.io),
    0,
  );
  assert.match(out.stdout(), /removed 0 saved/);
});

Deno.test("cache flush asks the running server through the control socket", async () => {
  await using tmp = await socketDir();
  const asked: (string | undefined)[] = [];
  const logger = memoryLogger();
  const control = await startControlSocket(tmp.dir, {
    flushCache: (name) => {
      asked.push(name);
      return Promise.resolve(name === undefined ? 7 : 2);
    },
  }, logger);
  assert.ok(control);
  // The dump the server started from: the flushed name leaves it too.
  const dumpPath = join(tmp.dir, LOCAL_DB_FILE);
  saveCacheDump(dumpPath, [
    entry("a", "ads.example."),
    entry("b", "ok.example."),
  ]);
  try {
    const mode = (await Deno.stat(control.path)).mode! & 0o777;
    assert.equal(mode, 0o600, "only the owner may use the socket");
    const one = bufferIO();
    assert.equal(
      await cacheCommand.run(
        ["flush", "ads.example", "--data-dir", tmp.dir],
        one.io,
      ),
      0,
    );
    assert.match(
      one.stdout(),
      /Flushed 2 cached answers for ads.example from the running server/,
    );
    assert.deepEqual(
      loadCacheDump(dumpPath, { logger }).map((e) => e.name),
      ["ok.example."],
    );
    const all = bufferIO();
    assert.equal(
      await cacheCommand.run(["flush", "--data-dir", tmp.dir], all.io),
      0,
    );
    assert.match(
      all.stdout(),
      /Flushed 7 cached answers from the running server/,
    );
    assert.deepEqual(asked, ["ads.example", undefined]);

    // A second server on the same data directory refuses to start, and
    // leaves the socket alone.
    await assert.rejects(
      startControlSocket(tmp.dir, {
        flushCache: () => Promise.resolve(0),
      }, logger),
      /Another kudurru serves the data directory ".*" \(it answers on .*kudurru\.sock\)/,
    );
    const still = bufferIO();
    await cacheCommand.run(["flush", "--data-dir", tmp.dir], still.io);
    assert.match(still.stdout(), /from the running server/);
  } finally {
    await control.stop();
  }
  await assert.rejects(
    Deno.stat(join(tmp.dir, CONTROL_SOCKET_FILE)),
    Deno.errors.NotFound,
  );
});

Deno.test("the control socket refuses bad requests with a reason", async () => {
  await using tmp = await socketDir();
  const control = await startControlSocket(tmp.dir, {
    flushCache: () => Promise.reject(new Error("must not be called")),
  }, memoryLogger());
  assert.ok(control);
  const client = Deno.createHttpClient({
    proxy: { transport: "unix", path: control.path },
  });
  try {
    const cases: [string, string, string, number, RegExp][] = [
      ["POST", "/v1/cache/flush", "{not json", 400, /must be JSON/],
      ["POST", "/v1/cache/flush", '{"nmae":"x"}', 400, /unknown field "nmae"/],
      ["POST", "/v1/cache/flush", '{"name":"a b"}', 400, /domain name/],
      ["POST", "/v1/cache/flush", "[]", 400, /JSON object/],
      ["GET", "/v1/cache/flush", "", 405, /POST/],
      ["POST", "/v1/other", "{}", 404, /no such control endpoint/],
      ["POST", "/v1/cache/flush", "x".repeat(20_000), 413, /over 16384/],
    ];
    for (const [method, path, body, status, error] of cases) {
      const res = await fetch(`http://localhost${path}`, {
        method,
        client,
        ...(method === "POST" ? { body } : {}),
      });
      assert.equal(res.status, status, `${method} ${path} ${body}`);
      assert.match((await res.json()).error, error);
    }
  } finally {
    client.close();
    await control.stop();
  }
});

Deno.test("the control socket checks a flush's subtree field", async () => {
  await using tmp = await socketDir();
  const asked: unknown[] = [];
  const control = await startControlSocket(tmp.dir, {
    flushCache: (name, opts) => {
      asked.push([name, opts?.subtree]);
      return Promise.resolve(1);
    },
  }, memoryLogger());
  assert.ok(control);
  const client = Deno.createHttpClient({
    proxy: { transport: "unix", path: control.path },
  });
  try {
    const cases: [string, number, RegExp | number][] = [
      ['{"name":"a.example","subtree":"yes"}', 400, /must be true or false/],
      ['{"subtree":true}', 400, /"subtree" needs a "name"/],
      ['{"name":"a.example","subtree":true,"zone":1}', 400, /field "zone"/],
      ['{"name":".","subtree":false}', 400, /"\." names the root/],
      ['{"name":"A.example","subtree":true}', 200, 1],
      ['{"name":".","subtree":true}', 200, 1],
      ['{"subtree":false}', 200, 1],
    ];
    for (const [body, status, answer] of cases) {
      const res = await fetch("http://localhost/v1/cache/flush", {
        method: "POST",
        client,
        body,
      });
      assert.equal(res.status, status, body);
      const { error, removed } = await res.json();
      if (typeof answer === "number") assert.equal(removed, answer, body);
      else assert.match(error, answer, body);
    }
    assert.deepEqual(asked, [
      ["A.example", true],
      [".", true],
      [undefined, false],
    ]);
  } finally {
    client.close();
    await control.stop();
  }
});

Deno.test("cache flush NAME --subtree drops the name and those below it in a running server's workers", async () => {
  await using tmp = await socketDir();
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: CACHE_WORKER,
  });
  const control = await startControlSocket(tmp.dir, {
    flushCache: (name, opts) => listeners.flushCache(name, opts),
  }, memoryLogger());
  try {
    assert.ok(control);
    listeners.setSnapshot(snapshotWithCache(cacheSettings()));
    // Taken in order: once this flush is answered, so is the snapshot.
    await listeners.flushCache("barrier.invalid.");
    const [addr] = listeners.addresses();
    const below = ["example.com.", "www.example.com.", "a.b.example.com."];
    const beside = ["notexample.com.", "com."];
    for (const name of [...below, ...beside]) {
      await udpExchange("127.0.0.1", addr!.port, buildQuery(1, name, "TXT"));
    }
    const dumpPath = join(tmp.dir, LOCAL_DB_FILE);
    saveCacheDump(dumpPath, [
      entry("a", "www.example.com."),
      entry("b", "notexample.com."),
    ]);
    const out = bufferIO();
    assert.equal(
      await cacheCommand.run(
        ["flush", "example.com", "--subtree", "--data-dir", tmp.dir],
        out.io,
      ),
      0,
      out.stderr(),
    );
    assert.equal(
      out.stdout(),
      "Flushed 3 cached answers for example.com and below from the running server.\n",
    );
    // Still cached: a flush of each name beside it drops one answer.
    for (const name of beside) {
      assert.equal(await listeners.flushCache(name), 1, name);
    }
    assert.deepEqual(
      loadCacheDump(dumpPath, { logger: memoryLogger() }).map((e) => e.name),
      ["notexample.com."],
    );
  } finally {
    await control?.stop();
    await listeners.stop();
  }
});

Deno.test("cache flush --subtree needs a NAME; the root with it is everything", async () => {
  await using tmp = await tempDir();
  const run = (...args: string[]) =>
    cacheCommand.run(["flush", ...args, "--data-dir", tmp.dir], bufferIO().io);
  await assert.rejects(
    run("--subtree"),
    (err: unknown) =>
      err instanceof UsageError &&
      /--subtree needs a NAME, the top of the subtree/.test(err.message),
  );
  await assert.rejects(run("."), /"\." names the root; to flush everything/);
  saveCacheDump(join(tmp.dir, LOCAL_DB_FILE), [
    entry("a", "ads.example."),
    entry("b", "www.example."),
  ]);
  const out = bufferIO();
  assert.equal(
    await cacheCommand.run(
      ["flush", ".", "--subtree", "--data-dir", tmp.dir],
      out.io,
    ),
    0,
  );
  assert.match(out.stdout(), /removed 2 saved cached answers for \. and below/);
});

Deno.test("cache with a wrong subcommand is a usage error with a hint", async () => {
  await assert.rejects(
    cacheCommand.run(["flsh"], bufferIO().io),
    (err: unknown) =>
      err instanceof UsageError && /did you mean "flush"/.test(err.message),
  );
  await assert.rejects(cacheCommand.run([], bufferIO().io), UsageError);
});

Deno.test("cache flush refuses a name that is not a domain name, before asking anyone", async () => {
  await using tmp = await socketDir();
  for (const bad of ["bad name!", "a..b", `${"x".repeat(64)}.example`]) {
    await assert.rejects(
      () =>
        cacheCommand.run(["flush", bad, "--data-dir", tmp.dir], bufferIO().io),
      (err: unknown) =>
        err instanceof UsageError && /is not a domain name/.test(err.message),
      bad,
    );
  }
});

Deno.test("cache flush on a data directory that is not there is an error, not a flush", async () => {
  await using tmp = await tempDir();
  const missing = join(tmp.dir, "dta");
  const out = bufferIO();
  assert.equal(
    await cacheCommand.run(["flush", "--data-dir", missing], out.io),
    1,
  );
  assert.equal(out.stdout(), "");
  assert.match(out.stderr(), /No data directory at ".*dta"/);
  await assert.rejects(Deno.stat(missing), Deno.errors.NotFound);
});

Deno.test("cache flush that cannot tell whether a server runs says so and exits 1", async () => {
  await using tmp = await tempDir();
  // A socket file this process may not connect to (the test runner allows
  // one Unix socket path only): anything but "no socket" or "nobody
  // listening" is an error, never "no server is running".
  await Deno.writeTextFile(join(tmp.dir, CONTROL_SOCKET_FILE), "");
  saveCacheDump(join(tmp.dir, LOCAL_DB_FILE), [entry("a", "ads.example.")]);
  const out = bufferIO();
  assert.equal(
    await cacheCommand.run(["flush", "--data-dir", tmp.dir], out.io),
    1,
  );
  assert.equal(out.stdout(), "");
  assert.match(
    out.stderr(),
    /kudurru cache flush: cannot tell whether a server runs: .*kudurru\.sock/,
  );
  assert.equal(
    loadCacheDump(join(tmp.dir, LOCAL_DB_FILE), { logger: memoryLogger() })
      .length,
    1,
    "the saved cache is left alone",
  );
});

Deno.test("the control socket tells the CLI the configuration the server started with", async () => {
  await using tmp = await socketDir();
  const running = {
    source: "/etc/kudurru/kudurru.yaml",
    startedAt: "2030-01-02T03:04:05.000Z",
    config: { blocking: { enabled: true } },
  };
  const control = await startControlSocket(tmp.dir, {
    flushCache: () => Promise.resolve(0),
    runningConfig: () => running,
  }, memoryLogger());
  assert.ok(control);
  try {
    assert.deepEqual(await askRunningServer(tmp.dir), {
      state: "running",
      path: control.path,
      running,
    });
  } finally {
    await control.stop();
  }
  assert.deepEqual(await askRunningServer(tmp.dir), {
    state: "absent",
    path: control.path,
  });
  // A server that cannot say (older): unknown, not "absent".
  const older = await startControlSocket(tmp.dir, {
    flushCache: () => Promise.resolve(0),
  }, memoryLogger());
  assert.ok(older);
  try {
    const asked = await askRunningServer(tmp.dir);
    assert.equal(asked.state, "unknown");
  } finally {
    await older.stop();
  }
});
