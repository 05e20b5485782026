import assert from "node:assert/strict";
import { createDnsMetrics } from "./dns_metrics.ts";
import { newRegistry } from "./registry.ts";
import { sample } from "./testdata/prom_text.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";

Deno.test("query log stats are set, or pulled at scrape time, as counters that only grow", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const queueFull = { reason: "queue_full" };
  metrics.setQueryLogStats({ queued: 7, written: 100, dropped: 1 });
  let text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_queue_depth"), 7);
  assert.equal(sample(text, "kudurru_querylog_written_total"), 100);
  assert.equal(sample(text, "kudurru_querylog_dropped_total", queueFull), 1);
  let stats = { queued: 0, written: 150, dropped: 1 };
  metrics.readQueryLogStatsFrom(() => stats);
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_queue_depth"), 0);
  assert.equal(sample(text, "kudurru_querylog_written_total"), 150);
  stats = { queued: 2, written: 10, dropped: 0 }; // a new writer started from zero
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_written_total"), 160);
  assert.equal(sample(text, "kudurru_querylog_dropped_total", queueFull), 1);
});

Deno.test("query log drops show by reason, with failed batches, failed opens and a write-error gauge", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const stats = {
    queued: 0,
    written: 0,
    dropped: 0,
    droppedWriteFailed: 0,
    failedBatches: 0,
    failedOpens: 0,
    failing: false,
  };
  metrics.readQueryLogStatsFrom(() => stats);
  let text = await registry.metrics();
  const dropped = (reason: string) =>
    sample(text, "kudurru_querylog_dropped_total", { reason });
  assert.equal(dropped("queue_full"), 0, "both reasons show from the start");
  assert.equal(dropped("write_failed"), 0);
  assert.equal(sample(text, "kudurru_querylog_write_error"), 0);
  Object.assign(stats, {
    dropped: 250,
    droppedWriteFailed: 200,
    failedBatches: 7,
    failedOpens: 3,
    failing: true,
  });
  text = await registry.metrics();
  assert.equal(dropped("queue_full"), 50);
  assert.equal(dropped("write_failed"), 200);
  assert.equal(sample(text, "kudurru_querylog_failed_batches_total"), 7);
  assert.equal(sample(text, "kudurru_querylog_failed_opens_total"), 3);
  assert.equal(sample(text, "kudurru_querylog_write_error"), 1);
  stats.failing = false;
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_write_error"), 0);
});

Deno.test("reads that skipped an undecodable event chunk show as a counter", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const stats = { queued: 0, written: 0, dropped: 0, unreadableChunks: 0 };
  metrics.readQueryLogStatsFrom(() => stats);
  let text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_unreadable_chunks_total"), 0);
  stats.unreadableChunks = 3;
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_unreadable_chunks_total"), 3);
  stats.unreadableChunks = 5;
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_unreadable_chunks_total"), 5);
});

Deno.test("query log files replaced or lost while running show as counters", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const stats = {
    queued: 0,
    written: 0,
    dropped: 0,
    damagedFilesReplaced: 0,
    filesLostFromPath: 0,
  };
  metrics.readQueryLogStatsFrom(() => stats);
  const replaced = "kudurru_querylog_damaged_files_replaced_total";
  const lost = "kudurru_querylog_files_lost_total";
  let text = await registry.metrics();
  assert.equal(sample(text, replaced), 0);
  assert.equal(sample(text, lost), 0);
  stats.damagedFilesReplaced = 1;
  stats.filesLostFromPath = 2;
  text = await registry.metrics();
  assert.equal(sample(text, replaced), 1);
  assert.equal(sample(text, lost), 2);
});

Deno.test("snapshot metrics are absent before the first snapshot, then read it", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const last: { posted?: Snapshot } = {};
  metrics.readSnapshotFrom(() => last.posted);
  const before = await registry.metrics();
  assert.equal(sample(before, "kudurru_snapshot_age_seconds"), undefined);
  assert.equal(sample(before, "kudurru_snapshot_version"), undefined);
  assert.equal(sample(before, "kudurru_zones", { type: "primary" }), undefined);
  const posted: Snapshot = {
    ...snapshotOf(
      // Two objects claiming a.test.: one zone served.
      [1, 2].map(() =>
        zoneFromText("a.test.", [
          "a.test. 60 IN SOA ns.a.test. h.a.test. 1 3600 900 1209600 30",
        ])
      ),
      [{ name: "f.test.", objectName: "f", upstreamGroup: "g" }],
      7,
    ),
    builtAt: new Date(Date.now() - 90_000).toISOString(),
  };
  last.posted = posted;
  posted.blocking = {
    enabled: true,
    response: { mode: "zeroIP", customIPs: [], ttl: 600 },
    lists: [
      {
        key: "default/ads",
        name: "ads",
        mode: "block",
        digest: "d",
        ruleCount: 1234,
        data: null,
      },
      {
        key: "team/ads",
        name: "team/ads",
        mode: "block",
        digest: "e",
        ruleCount: 5,
        data: null,
      },
    ],
    groups: [],
    policies: [],
  };
  const text = await registry.metrics();
  const age = sample(text, "kudurru_snapshot_age_seconds")!;
  assert.ok(age >= 90 && age < 100, `age ${age}`);
  assert.equal(sample(text, "kudurru_snapshot_version"), 7);
  assert.equal(sample(text, "kudurru_zones", { type: "primary" }), 1);
  assert.equal(sample(text, "kudurru_zones", { type: "forward" }), 1);
  // Labelled by the name blocked answers carry (kudurru_blocked_total's
  // label), so the two join in PromQL: "namespace/" only outside default.
  assert.equal(sample(text, "kudurru_blocklist_rules", { list: "ads" }), 1234);
  assert.equal(
    sample(text, "kudurru_blocklist_rules", { list: "team/ads" }),
    5,
  );
  assert.equal(
    sample(text, "kudurru_blocklist_rules", { list: "default/ads" }),
    undefined,
  );
  // A list gone from the snapshot leaves the gauge.
  posted.blocking.lists = [];
  assert.equal(
    sample(await registry.metrics(), "kudurru_blocklist_rules", {
      list: "ads",
    }),
    undefined,
  );
});

Deno.test("process metrics read non-zero under scoped permissions", async () => {
  const registry = newRegistry();
  createDnsMetrics(registry);
  // Burn a little CPU so the counter has something to show.
  let x = 0;
  for (let i = 0; i < 2_000_000; i++) x += i % 7;
  assert.ok(x > 0);
  const text = await registry.metrics();
  const rss = sample(text, "kudurru_process_resident_memory_bytes")!;
  assert.ok(rss > 10 * 1024 * 1024, `rss ${rss}`);
  assert.ok(sample(text, "kudurru_process_heap_bytes", { kind: "used" })! > 0);
  assert.ok(sample(text, "kudurru_process_heap_bytes", { kind: "total" })! > 0);
  const cpu = sample(text, "kudurru_process_cpu_seconds_total", {
    mode: "user",
  })!;
  assert.ok(cpu > 0, `cpu ${cpu}`);
  const started = sample(text, "kudurru_process_start_time_seconds")!;
  assert.ok(started <= Date.now() / 1000 && started > Date.now() / 1000 - 3600);
  // CPU seconds never go down between scrapes.
  const again = sample(
    await registry.metrics(),
    "kudurru_process_cpu_seconds_total",
    { mode: "user" },
  )!;
  assert.ok(again >= cpu);
});
