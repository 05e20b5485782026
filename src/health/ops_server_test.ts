import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { HttpListenerError } from "../metrics/http_listener.ts";
import { assertBadHostRefused } from "../metrics/testdata/raw_http.ts";
import { createHealth } from "./health.ts";
import { enterLameduck } from "./lameduck.ts";
import { HEALTH_PATHS, startOpsServer } from "./ops_server.ts";

async function get(url: string, method = "GET") {
  const res = await fetch(url, { method });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: text === "" ? undefined : JSON.parse(text),
  };
}

Deno.test("the ops server's probes follow startup, readiness and lameduck", async () => {
  const health = createHealth();
  let storeSynced = false;
  health.register(
    "store",
    () =>
      storeSynced
        ? { ready: true }
        : { ready: false, reason: "waiting for the first store sync" },
  );
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health,
    logger: memoryLogger(),
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    assert.deepEqual(await get(`${base}/healthz/live`), {
      status: 200,
      type: "application/json; charset=utf-8",
      body: { live: true },
    });
    assert.equal((await get(`${base}/healthz/startup`)).status, 503);
    const starting = await get(`${base}/healthz/ready`);
    assert.equal(starting.status, 503);
    assert.deepEqual(
      starting.body.checks.map((c: { name: string }) => c.name),
      [
        "startup",
        "store",
      ],
    );

    health.markStarted();
    assert.deepEqual(await get(`${base}/healthz/startup`), {
      status: 200,
      type: "application/json; charset=utf-8",
      body: { started: true },
    });
    const unsynced = await get(`${base}/healthz/ready`);
    assert.equal(unsynced.status, 503);
    assert.deepEqual(unsynced.body.checks[1], {
      name: "store",
      ready: false,
      reason: "waiting for the first store sync",
    });

    storeSynced = true;
    assert.deepEqual(await get(`${base}/healthz/ready`), {
      status: 200,
      type: "application/json; charset=utf-8",
      body: {
        ready: true,
        checks: [{ name: "startup", ready: true }, {
          name: "store",
          ready: true,
        }],
      },
    });

    // Lameduck: ready fails at once, live and startup stay up.
    await enterLameduck({ health, logger: memoryLogger(), graceMs: 0 });
    const leaving = await get(`${base}/healthz/ready`);
    assert.equal(leaving.status, 503);
    assert.equal(leaving.body.ready, false);
    assert.equal((await get(`${base}/healthz/live`)).status, 200);
    assert.equal((await get(`${base}/healthz/startup`)).status, 200);
  } finally {
    await server.stop();
  }
});

/** A HEAD and a GET of `url`, as far as HEAD must match GET (RFC 9110 §9.3.2). */
async function headAndGet(url: string) {
  const head = await fetch(url, { method: "HEAD" });
  const get = await fetch(url);
  const getBody = new Uint8Array(await get.arrayBuffer());
  return {
    head: {
      status: head.status,
      type: head.headers.get("content-type"),
      length: head.headers.get("content-length"),
    },
    headBody: await head.text(),
    get: {
      status: get.status,
      type: get.headers.get("content-type"),
      length: String(getBody.length),
    },
  };
}

Deno.test("the ops server answers HEAD with GET's status and headers, without the body", async () => {
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health: createHealth(), // not started: the 503s count too
    logger: memoryLogger(),
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const statuses: [string, number][] = [
    [HEALTH_PATHS.live, 200],
    [HEALTH_PATHS.startup, 503],
    [HEALTH_PATHS.ready, 503],
  ];
  try {
    for (const [path, status] of statuses) {
      const { head, headBody, get } = await headAndGet(`${base}${path}`);
      assert.deepEqual(head, get, path);
      assert.equal(head.status, status, path);
      assert.equal(headBody, "", path);
    }
  } finally {
    await server.stop();
  }
});

Deno.test("the ops server answers 404 off the probes and 405 for other methods", async () => {
  const health = createHealth();
  health.markStarted();
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health,
    logger: memoryLogger(),
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    for (const path of ["/", "/healthz", "/metrics", "/lameduck"]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    const post = await fetch(`${base}/healthz/ready`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  } finally {
    await server.stop();
  }
});

Deno.test("the ops server answers 400 to a Host header that forms no URL, and logs no error", async () => {
  const health = createHealth();
  health.markStarted();
  const logger = memoryLogger();
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health,
    logger,
  });
  try {
    await assertBadHostRefused(server.addr.port, "/healthz/live", logger.lines);
  } finally {
    await server.stop();
  }
});

Deno.test("an ops address in use fails with a message naming the setting", async () => {
  const server = startOpsServer({
    hostname: "127.0.0.1",
    port: 0,
    health: createHealth(),
    logger: memoryLogger(),
  });
  try {
    assert.throws(
      () =>
        startOpsServer({
          hostname: "127.0.0.1",
          port: server.addr.port,
          health: createHealth(),
          logger: memoryLogger(),
        }),
      (err: unknown) =>
        err instanceof HttpListenerError && err.code === "AddrInUse" &&
        /for health probes: address in use; .*listeners\.ops\.address/.test(
          err.message,
        ),
    );
  } finally {
    await server.stop();
  }
});

Deno.test("the ops server listens on IPv6 loopback too", async () => {
  const health = createHealth();
  const server = startOpsServer({
    hostname: "::1",
    port: 0,
    health,
    logger: memoryLogger(),
  });
  try {
    assert.equal(
      (await get(`http://[::1]:${server.addr.port}/healthz/live`)).status,
      200,
    );
  } finally {
    await server.stop();
  }
});
