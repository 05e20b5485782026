import assert from "node:assert/strict";
import { newRegistry } from "./registry.ts";
import { createTransferMetrics } from "./transfer_metrics.ts";

Deno.test("transfer metrics count refreshes by result and NOTIFY by outcome, per zone", async () => {
  const registry = newRegistry();
  const metrics = createTransferMetrics(registry);
  metrics.transferIn("example.org.", "IXFR");
  metrics.transferIn("example.org.", "IXFR");
  metrics.transferIn("example.org.", "timeout");
  metrics.notified("example.org.", "192.0.2.53 53", "failed");
  const text = await registry.metrics();
  assert.match(
    text,
    /kudurru_zone_transfers_in_total\{zone="example\.org\.",result="IXFR"\} 2/,
  );
  assert.match(
    text,
    /kudurru_zone_transfers_in_total\{zone="example\.org\.",result="timeout"\} 1/,
  );
  assert.match(
    text,
    /kudurru_zone_notify_total\{zone="example\.org\.",target="192\.0\.2\.53 53",outcome="failed"\} 1/,
  );
});
