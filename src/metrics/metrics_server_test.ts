import assert from "node:assert/strict";
import client from "prom-client";
import { memoryLogger } from "../log/logger.ts";
import { createDnsMetrics } from "./dns_metrics.ts";
import { HttpListenerError } from "./http_listener.ts";
import { startMetricsServer } from "./metrics_server.ts";
import { newRegistry } from "./registry.ts";
import { sample } from "./testdata/prom_text.ts";
import { assertBadHostRefused } from "./testdata/raw_http.ts";

function start(registry = newRegistry()) {
  const logger = memoryLogger();
  const server = startMetricsServer({
    hostname: "127.0.0.1",
    port: 0,
    registry,
    logger,
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return { server, base, registry, logger };
}

Deno.test("the metrics server answers GET /metrics in the Prometheus text format", async () => {
  const { server, base, registry } = start();
  try {
    const metrics = createDnsMetrics(registry);
    metrics.setQueryLogStats({ queued: 3, written: 42, dropped: 0 });
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      "text/plain; version=0.0.4; charset=utf-8",
    );
    const text = await res.text();
    assert.equal(sample(text, "kudurru_querylog_written_total"), 42);
    assert.ok(sample(text, "kudurru_process_resident_memory_bytes")! > 0);
  } finally {
    await server.stop();
  }
});

Deno.test("the metrics server answers 404 elsewhere and 405 for other methods", async () => {
  const { server, base } = start();
  try {
    for (const path of ["/", "/metricsx", "/healthz/ready"]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
    const post = await fetch(`${base}/metrics`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  } finally {
    await server.stop();
  }
});

Deno.test("the metrics server answers 400 to a Host header that forms no URL, and logs no error", async () => {
  const { server, logger } = start();
  try {
    await assertBadHostRefused(server.addr.port, "/metrics", logger.lines);
  } finally {
    await server.stop();
  }
});

Deno.test("the metrics server answers HEAD with GET's headers and length, without the body", async () => {
  // Only a fixed gauge, so that GET's text and length do not move between the two requests.
  const registry = newRegistry();
  new client.Gauge({ name: "t_fixed", help: "test", registers: [registry] })
    .set(42);
  const { server, base } = start(registry);
  try {
    const head = await fetch(`${base}/metrics`, { method: "HEAD" });
    const get = await fetch(`${base}/metrics`);
    const text = await get.text();
    assert.match(text, /^t_fixed 42$/m);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), registry.contentType);
    assert.equal(
      head.headers.get("content-length"),
      String(new TextEncoder().encode(text).length),
    );
    assert.equal(await head.text(), "");
  } finally {
    await server.stop();
  }
});

Deno.test("a metric whose collect throws costs the scrape a 500, not the server", async () => {
  const registry = newRegistry();
  new client.Gauge({
    name: "t_broken",
    help: "test",
    registers: [registry],
    collect() {
      throw new Error("broken collector");
    },
  });
  const logger = memoryLogger();
  const server = startMetricsServer({
    hostname: "127.0.0.1",
    port: 0,
    registry,
    logger,
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/metrics`);
    assert.equal(res.status, 500);
    await res.body?.cancel();
    assert.match(logger.lines.join("\n"), /Cannot collect metrics/);
  } finally {
    await server.stop();
  }
});

Deno.test("a metrics address in use fails with a message naming the setting", async () => {
  const { server } = start();
  try {
    assert.throws(
      () =>
        startMetricsServer({
          hostname: "127.0.0.1",
          port: server.addr.port,
          registry: newRegistry(),
          logger: memoryLogger(),
        }),
      (err: unknown) => {
        assert.ok(err instanceof HttpListenerError);
        assert.equal(err.code, "AddrInUse");
        assert.match(
          err.message,
          /^Cannot listen on 127\.0\.0\.1:\d+ for metrics: address in use; .*listeners\.metrics\.address/,
        );
        return true;
      },
    );
  } finally {
    await server.stop();
  }
});
