import assert from "node:assert/strict";
import { BulkHistogram, BulkSummary, CallbackGauge } from "./bulk_metrics.ts";
import { newRegistry } from "./registry.ts";
import { sample, typeOf } from "./testdata/prom_text.ts";

Deno.test("a bulk histogram exports cumulative buckets, +Inf, the exact sum and the count", async () => {
  const registry = newRegistry();
  const h = new BulkHistogram({
    name: "t_duration_seconds",
    help: "test",
    labelNames: ["transport"] as const,
    bounds: [0.001, 0.01, 0.1],
    registers: [registry],
  });
  assert.equal(h.add({ transport: "udp" }, [3, 0, 2, 1], 0.75), true);
  assert.equal(h.add({ transport: "udp" }, [1, 1, 0, 0], 0.0125), true);
  assert.equal(h.add({ transport: "tcp" }, [0, 0, 0, 4], 8), true);
  const text = await registry.metrics();
  assert.equal(typeOf(text, "t_duration_seconds"), "histogram");
  const udp = (le: string) =>
    sample(text, "t_duration_seconds_bucket", { transport: "udp", le });
  assert.deepEqual(
    [udp("0.001"), udp("0.01"), udp("0.1"), udp("+Inf")],
    [4, 5, 7, 8],
  );
  assert.equal(
    sample(text, "t_duration_seconds_sum", { transport: "udp" }),
    0.7625,
  );
  assert.equal(
    sample(text, "t_duration_seconds_count", { transport: "udp" }),
    8,
  );
  assert.equal(
    sample(text, "t_duration_seconds_bucket", { transport: "tcp", le: "0.1" }),
    0,
  );
  assert.equal(
    sample(text, "t_duration_seconds_count", { transport: "tcp" }),
    4,
  );
});

Deno.test("a bulk histogram ignores batches of the wrong shape and bad numbers", async () => {
  const registry = newRegistry();
  const h = new BulkHistogram({
    name: "t_h",
    help: "test",
    bounds: [1, 2],
    registers: [registry],
  });
  assert.equal(h.add({}, [1, 2], 3), false); // one bucket short
  h.add({}, [1, -4, Number.NaN], Number.POSITIVE_INFINITY);
  const text = await registry.metrics();
  assert.equal(sample(text, "t_h_count"), 1);
  assert.equal(sample(text, "t_h_sum"), 0);
  assert.throws(
    () => new BulkHistogram({ name: "t_bad", help: "x", bounds: [2, 1] }),
    /must increase/,
  );
});

Deno.test("a bulk summary exports sum and count per label set", async () => {
  const registry = newRegistry();
  const s = new BulkSummary({
    name: "t_rtt_seconds",
    help: "test",
    labelNames: ["upstream"] as const,
    registers: [registry],
  });
  s.add({ upstream: "udp://192.0.2.1:53" }, 2, 0.03);
  s.add({ upstream: "udp://192.0.2.1:53" }, 1, 0.01);
  s.add({ upstream: "tls://1.1.1.1" }, 0, 5); // nothing observed: no series
  const text = await registry.metrics();
  assert.equal(typeOf(text, "t_rtt_seconds"), "summary");
  const labels = { upstream: "udp://192.0.2.1:53" };
  assert.equal(sample(text, "t_rtt_seconds_count", labels), 3);
  assert.ok(
    Math.abs(sample(text, "t_rtt_seconds_sum", labels)! - 0.04) < 1e-9,
  );
  assert.equal(
    sample(text, "t_rtt_seconds_count", { upstream: "tls://1.1.1.1" }),
    undefined,
  );
});

Deno.test("a callback gauge has no sample until it can read one", async () => {
  const registry = newRegistry();
  let value: number | undefined;
  new CallbackGauge({
    name: "t_age_seconds",
    help: "test",
    read: () => {
      if (value === -1) throw new Error("broken");
      return value;
    },
    registers: [registry],
  });
  assert.equal(sample(await registry.metrics(), "t_age_seconds"), undefined);
  value = 12.5;
  assert.equal(sample(await registry.metrics(), "t_age_seconds"), 12.5);
  value = -1;
  assert.equal(sample(await registry.metrics(), "t_age_seconds"), undefined);
});
