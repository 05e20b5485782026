/**
 * The process-wide prom-client registry. Metric names follow
 * `kudurru_<component>_<thing>_<unit|total>`; label values stay bounded.
 * Components take a Registry so tests can use a fresh one.
 */
import client from "prom-client";

export type Registry = client.Registry;
export const { Counter, Gauge, Histogram } = client;

export function newRegistry(): Registry {
  return new client.Registry();
}

/** The registry `kudurru serve` exposes on the metrics port. */
export const defaultRegistry: Registry = newRegistry();
