/**
 * Process metrics (kudurru_process_*) read when scraped. prom-client's
 * default process metrics read /proc, which needs `-A` and reads 0 under
 * the scoped permissions kudurru runs with (docs/design.md#secure-by-default);
 * `Deno.memoryUsage()` and `process.cpuUsage()` need no permission.
 */
import process from "node:process";
import client from "prom-client";
import type { Registry } from "./registry.ts";

/** Registers the process metrics on `registry`. */
export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  new client.Gauge({
    name: "kudurru_process_resident_memory_bytes",
    help: "Resident set size of the process.",
    registers,
    collect() {
      this.set(Deno.memoryUsage().rss);
    },
  });
  new client.Gauge({
    name: "kudurru_process_heap_bytes",
    help:
      "JavaScript heap of the main thread: used, total (reserved) and external (buffers outside the heap).",
    labelNames: ["kind"] as const,
    registers,
    collect() {
      const memory = Deno.memoryUsage();
      this.set({ kind: "used" }, memory.heapUsed);
      this.set({ kind: "total" }, memory.heapTotal);
      this.set({ kind: "external" }, memory.external);
    },
  });
  // CPU time only grows: a counter, advanced by what was used since the
  // previous scrape, so rate() works as for any counter.
  const counted = { user: 0, system: 0 };
  new client.Counter({
    name: "kudurru_process_cpu_seconds_total",
    help: "CPU time used by the process (all threads), by mode.",
    labelNames: ["mode"] as const,
    registers,
    collect() {
      const usage = process.cpuUsage();
      for (const mode of ["user", "system"] as const) {
        const seconds = usage[mode] / 1e6;
        if (seconds > counted[mode]) {
          this.inc({ mode }, seconds - counted[mode]);
          counted[mode] = seconds;
        }
      }
    },
  });
  const started = performance.timeOrigin / 1000;
  new client.Gauge({
    name: "kudurru_process_start_time_seconds",
    help: "Unix time the process started.",
    registers,
    collect() {
      this.set(started);
    },
  });
}
