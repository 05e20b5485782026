import assert from "node:assert/strict";
import { createDnsMetrics } from "./dns_metrics.ts";
import { newRegistry } from "./registry.ts";
import { sample } from "./testdata/prom_text.ts";

Deno.test("query log stats are set, or pulled at scrape time, as counters that only grow", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  metrics.setQueryLogStats({ queued: 7, written: 100, dropped: 1 });
  let text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_queue_depth"), 7);
  assert.equal(sample(text, "kudurru_querylog_written_total"), 100);
  assert.equal(sample(text, "kudurru_querylog_dropped_total"), 1);
  let stats = { queued: 0, written: 150, dropped: 1 };
  metrics.readQueryLogStatsFrom(() => stats);
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_queue_depth"), 0);
  assert.equal(sample(text, "kudurru_querylog_written_total"), 150);
  stats = { queued: 2, written: 10, dropped: 0 }; // a new writer started from zero
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_querylog_written_total"), 160);
  assert.equal(sample(text, "kudurru_querylog_dropped_total"), 1);
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

Deno.test("damaged query log files replaced while running show as a counter", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const stats = { queued: 0, written: 0, dropped: 0, damagedFilesReplaced: 0 };
  metrics.readQueryLogStatsFrom(() => stats);
  const name = "kudurru_querylog_damaged_files_replaced_total";
  assert.equal(sample(await registry.metrics(), name), 0);
  stats.damagedFilesReplaced = 1;
  assert.equal(sample(await registry.metrics(), name), 1);
});

Deno.test("snapshot age is absent before the first snapshot, then counts from it", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const last: { at?: number } = {};
  metrics.readSnapshotTimeFrom(() => last.at);
  assert.equal(
    sample(await registry.metrics(), "kudurru_snapshot_age_seconds"),
    undefined,
  );
  last.at = Date.now() - 90_000;
  const age = sample(await registry.metrics(), "kudurru_snapshot_age_seconds")!;
  assert.ok(age >= 90 && age < 100, `age ${age}`);
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
