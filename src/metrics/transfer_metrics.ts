/**
 * Metrics of zone transfers on the main thread: transfers in for secondary
 * zones (src/transfer/secondary_zones.ts) and NOTIFY out to secondaries
 * (src/transfer/notify_out.ts). Transfers out are answers like any other:
 * `kudurru_dns_responses_total` counts them by status, and the stage
 * counters by query type (AXFR, IXFR).
 */
import client from "prom-client";
import type { Registry } from "./registry.ts";

/** What the transfer code reports. */
export interface TransferMetrics {
  /** A secondary zone's refresh: `result` transferred (how), current, or the failure's reason. */
  transferIn(zone: string, result: string): void;
  /** A NOTIFY's outcome for one target ("address port"): acknowledged or failed. */
  notified(zone: string, target: string, outcome: string): void;
}

export function createTransferMetrics(registry: Registry): TransferMetrics {
  const registers = [registry];
  const transfersIn = new client.Counter({
    name: "kudurru_zone_transfers_in_total",
    help:
      "Refreshes of secondary zones from their primaries, by zone and result (AXFR, IXFR, current, or why it failed: timeout, refused, tsig, malformed, out_of_zone, serial_backwards, too_large, …).",
    labelNames: ["zone", "result"],
    registers,
  });
  const notifies = new client.Counter({
    name: "kudurru_zone_notify_total",
    help:
      "NOTIFY sent to secondaries after a new serial, by zone, secondary (address and port; at most 64 a zone) and outcome (acknowledged, failed after its retries).",
    labelNames: ["zone", "target", "outcome"],
    registers,
  });
  return {
    transferIn: (zone, result) => transfersIn.inc({ zone, result }),
    notified: (zone, target, outcome) =>
      notifies.inc({ zone, target, outcome }),
  };
}
