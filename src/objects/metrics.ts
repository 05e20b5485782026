/** The loader's metrics (kudurru_objects_*). */
import client from "prom-client";
import type { Registry } from "../metrics/registry.ts";
import { countBySeverity } from "./diagnosis.ts";
import type { LoadReport } from "./report.ts";

export interface ObjectsMetrics {
  /** Records one finished load. */
  observe(report: LoadReport): void;
}

/** Metrics on `registry`; without one they are kept but not exposed. */
export function createObjectsMetrics(registry?: Registry): ObjectsMetrics {
  const registers = registry ? [registry] : [];
  const files = new client.Gauge({
    name: "kudurru_objects_files",
    help: "Sources (inline objects and files) read by the last objects load.",
    registers,
  });
  const applied = new client.Counter({
    name: "kudurru_objects_applied_total",
    help: "File-managed objects processed by the objects loader, by result.",
    labelNames: ["result"] as const,
    registers,
  });
  const diagnoses = new client.Gauge({
    name: "kudurru_objects_diagnoses",
    help: "Diagnoses of the last objects load, by severity.",
    labelNames: ["severity"] as const,
    registers,
  });
  const lastLoad = new client.Gauge({
    name: "kudurru_objects_last_load_timestamp_seconds",
    help: "Unix time the last objects load finished.",
    registers,
  });
  return {
    observe(report) {
      files.set(report.sources.filter((s) => s.read).length);
      for (const [result, n] of Object.entries(report.counts)) {
        applied.inc({ result }, n);
      }
      for (
        const [severity, n] of Object.entries(countBySeverity(report.diagnoses))
      ) {
        diagnoses.set({ severity }, n);
      }
      lastLoad.set(Date.now() / 1000);
    },
  };
}
